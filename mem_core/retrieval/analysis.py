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
* **Stems** (:func:`stem`): a light English suffix stemmer — plurals,
  ``-ing``, ``-ed``, ``-ly`` and a final ``e`` — so that ``caching``,
  ``cached``, ``caches`` and ``cache`` are one term. It only has to map the
  forms of a word onto one key, never to produce a dictionary word.
* **Terms** (:func:`terms`): the stems of the words; :func:`query_terms`
  also drops common English words ("how do I …") unless nothing else is left.

Pure Python, standard library only; imported only by what searches.
"""

from __future__ import annotations

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

_VOWELS = frozenset("aeiouy")


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


def _has_vowel(word: str) -> bool:
    return any(ch in _VOWELS for ch in word)


def stem(word: str) -> str:
    """The stem of one folded word (words of two characters or fewer,
    numbers and non-Latin words are kept as they are)."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    # plurals and third persons
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-2]
    elif word.endswith(("ches", "shes", "xes", "zes")) and len(word) > 4:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    # -ing, -ed (running -> run, used -> use), -ly, -ation (configuration -> configur)
    if word.endswith("ing") and len(word) >= 5 and _has_vowel(word[:-3]):
        word = _undouble(word[:-3])
    elif word.endswith("ed") and not word.endswith("eed") and len(word) >= 4 and _has_vowel(word[:-2]):
        word = _undouble(word[:-2]) if len(word) >= 5 else word[:-1]
    elif word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    elif word.endswith("ation") and len(word) >= 9:
        return word[:-5]
    # a final e (cache, cach-ing) and y after a consonant (copy, copi-ed)
    if word.endswith("e") and len(word) > 2:
        word = word[:-1]
    elif word.endswith("y") and len(word) > 2 and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    return word


def _undouble(base: str) -> str:
    if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "aeioulsz":
        return base[:-1]
    return base


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
