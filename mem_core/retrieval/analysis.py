"""Search text analysis: the words a person types, as the ``bm25`` ranker and
``memories --search`` compare them (not docs/contract.md §1, which stays the
reference's tokenizer for ``lexical``).

* **Folding** (:func:`fold`): case-folded, accents removed (NFKD, combining
  marks dropped, then NFC so that Hangul syllables stay whole): ``München``
  → ``munchen``, ``ÉTÉ`` → ``ete``, ``Straße`` → ``strasse``.
* **Words** (:func:`words`): runs of letters and digits; ``_`` and every
  other character separate (``read_text`` is ``read``, ``text``). Chinese,
  Japanese and Korean runs, written without spaces, become overlapping
  character bigrams (``修复缓存`` → ``修复``, ``复缓``, ``缓存``); a lone
  character is itself.
* **Stems** (:func:`stem`): the English Snowball stemmer (PyStemmer, the
  C implementation of the Snowball project's algorithm), so that
  ``caching``, ``cached``, ``caches`` and ``cache`` are one term, and so are
  ``migration`` and ``migrating``. One adjustment on top: the Latin root of
  ``revoke``/``revocable``, ``invoke``/``invocation`` (*vocare*) is spelt
  with a ``k`` in the verb and a ``c`` in its derivatives, which Snowball
  keeps apart; a stem ending in ``vok`` ends in ``voc``. A stem only has to
  map the forms of a word onto one key, never to produce a dictionary word.
* **Terms** (:func:`terms`): the stems of the words; :func:`query_terms`
  also drops common English words ("how do I …") unless nothing else is left.

Imported only by what searches (PyStemmer is loaded on the first stem).
"""

from __future__ import annotations

import _thread  # threading's lock without importing threading (start-up)
import re
import unicodedata

from mem_core.lazyre import lazy

__all__ = ["fold", "words", "stem", "terms", "query_terms", "search_words", "STOPWORDS"]

# Han (with extensions A and compatibility ideographs), kana, Hangul syllables
_CJK_RANGES = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# the CJK ranges make these two slow to compile (3 ms each): compiled for
# the first text that is not ASCII, where an ASCII word is [^\W_] already
_WORD = lazy(f"[{_CJK_RANGES}]+|[^\\W_{_CJK_RANGES}]+")
_CJK = lazy(f"[{_CJK_RANGES}]")
_ASCII_WORD = re.compile("[A-Za-z0-9]+")

#: common English words a question is phrased with; never the only terms of a query
STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does did for from how i if in into is it its me my
    of on or our should so that the their them then there these this those to was we were what when where
    which while who why will with would you your yours get use using""".split()
)


def fold(text: str) -> str:
    """``text`` case-folded, without accents."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    if decomposed.isascii():
        return decomposed
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped)


def words(text: str) -> list[str]:
    """The folded words of ``text``, CJK runs as character bigrams."""
    folded = fold(text)
    if folded.isascii():
        return _ASCII_WORD.findall(folded)
    found: list[str] = []
    for run in _WORD.findall(folded):
        if _CJK.match(run):
            if len(run) == 1:
                found.append(run)
            else:
                found.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            found.append(run)
    return found


_snowball = None
# a PyStemmer object is not safe to share between threads (a warm `mem mcp` runs tools in several)
_snowball_lock = _thread.allocate_lock()


def stem(word: str) -> str:
    """The stem of one folded word (words of two characters or fewer,
    numbers and non-Latin words are kept as they are)."""
    global _snowball
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    with _snowball_lock:
        if _snowball is None:
            import Stemmer

            _snowball = Stemmer.Stemmer("english")
        found: str = _snowball.stemWord(word)
    if found.endswith("vok"):
        found = found[:-1] + "c"
    return found


_stems: dict[str, str] = {}


def _stem(word: str) -> str:
    found = _stems.get(word)
    if found is None:
        if len(_stems) > 200_000:
            _stems.clear()
        found = _stems[word] = stem(word)
    return found


def terms(text: str) -> list[str]:
    """The terms of a text: the stems of its words, in order."""
    return [_stem(word) for word in words(text)]


def query_terms(text: str) -> list[str]:
    """The unique terms of a query, in first-seen order, without the
    :data:`STOPWORDS` (all of its words when every one is a stopword)."""
    found = words(text)
    kept = [word for word in found if word not in STOPWORDS] or found
    return list(dict.fromkeys(_stem(word) for word in kept))


def search_words(given: list[str]) -> list[tuple[str, ...]]:
    """What a full-text search of memories looks for, any of it: each given
    word as its folded words — one, or a phrase for a word of several
    (``cache-values``) —, unique, without the one-word :data:`STOPWORDS`
    (all of them when every one is a stopword)."""
    found = [tuple(words(text)) for text in given]
    found = [phrase for phrase in found if phrase]
    kept = [phrase for phrase in found if len(phrase) > 1 or phrase[0] not in STOPWORDS] or found
    return list(dict.fromkeys(kept))
