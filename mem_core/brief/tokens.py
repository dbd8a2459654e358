"""The token estimate every budget of ``mem`` is counted in (docs/brief.md).

No tokenizer ships with ``mem`` (it would cost megabytes and start-up time),
so budgets are counted with an estimate that errs on the high side for the
text ``mem`` prints — English prose, Markdown notes, code, JSON:

* a run of ASCII letters counts one token per 5 letters (rounded up), after
  splitting ``camelCase`` and ``HTTPServer`` at their humps;
* any other run of letters (``Schäfer``, ``日本``) counts one token per 3
  UTF-8 bytes (rounded up) — at least one per character;
* a run of digits counts one token per 3 digits (BPE vocabularies hold the
  numbers up to 999 and split longer ones so);
* every other visible character (punctuation, symbols, emoji) counts one;
* a run of white space counts one, except a single space before a word
  (BPE tokenizers fold it into the next token), one more when white space
  follows its last line break (``"\\n  "``), and one more when a run of two
  or more spaces ends before a digit or a symbol (``"  0"`` is three pieces).

Why it is an upper bound of real counts: the pre-tokenizers of the BPE
tokenizers in use (GPT-2's, ``cl100k``'s, ``o200k``'s) never merge across a
boundary between letters, digits, symbols and white space, so a real count
is at least the number of such pieces, and this estimate never gives a piece
less than one token; within a piece it assumes 5 letters per token where
English averages about 4.5 characters per *word* and a common word is one
token. ``tests/hooks/test_tokens.py`` checks it against the counts of the
real ``cl100k_base`` and ``o200k_base`` tokenizers on English, Markdown,
code and JSON samples (counted once, offline, and kept as data), and against
the pieces of ``cl100k``'s pre-tokenizer on random text.
"""

from __future__ import annotations

import re

__all__ = ["estimate_tokens"]

#: one piece: ASCII letters (camelCase split), other letters, digits, white
#: space, or one other character
_PIECE = re.compile(
    r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+"  # HTTP | Server | server
    r"|[^\W\d_a-zA-Z]+"  # letters outside ASCII
    r"|\d+"
    r"|\s+"
    r"|[^\s]",  # any other single character (symbols, _, emoji …)
)


def estimate_tokens(text: str) -> int:
    """The estimated number of tokens of ``text`` (see the module's docstring);
    0 for the empty string."""
    if not text:
        return 0
    count = 0
    end = len(text)
    for match in _PIECE.finditer(text):
        piece = match.group()
        first = piece[0]
        if first.isascii() and first.isalpha():
            count += -(-len(piece) // 5)
        elif first.isdigit():
            count += -(-len(piece) // 3) if piece.isascii() else len(piece)
        elif first.isspace():
            # the pre-tokenizers end a piece at the last line break of a run of white space
            # ("\n " is "\n" and " "), and fold one space into the next word
            newline = max(piece.rfind("\n"), piece.rfind("\r"))
            tail = piece[newline + 1 :]
            if newline >= 0:
                count += 1
            following = text[match.end()] if match.end() < end else ""
            if tail == " " and following.isalpha():
                continue  # folded into the next word
            if len(tail) > 1 and following and not following.isalpha():
                # "  0" is " ", " ", "0": the last space of a longer run before a
                # digit or a symbol is a piece of its own (or joins the symbol)
                count += 2
            elif tail:
                count += 1
        elif first.isalpha():
            count += max(len(piece), -(-len(piece.encode("utf-8", "surrogatepass")) // 3))
        else:
            count += 1
    return count
