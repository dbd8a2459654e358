"""The token estimate (mem_core/brief/tokens.py): never below the real count.

``data/token_samples.json`` holds English, Markdown, code and JSON samples
with their counts by the real ``cl100k_base`` and ``o200k_base`` tokenizers
(made offline with ``data/make_token_samples.py`` and ``count_tokens.cjs``).
On random text, the estimate is compared with the pieces of ``cl100k``'s
pre-tokenizer: a BPE tokenizer never merges across those pieces, so their
number is a lower bound of every real count, and an estimate below it would
be below the real count too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mem_core.brief.tokens import estimate_tokens

SAMPLES = json.loads((Path(__file__).parent / "data" / "token_samples.json").read_text(encoding="utf-8"))

#: cl100k_base's pre-tokenizer, in Python's ``re`` (``\p{L}`` as ``[^\W\d_]``,
#: ``\p{N}`` as ``\d``)
CL100K_PIECES = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\w]?[^\W\d_]+|\d{1,3}| ?[^\s\w]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+|_+"
)


def cl100k_pieces(text: str) -> int:
    return len(CL100K_PIECES.findall(text))


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["name"] for s in SAMPLES])
def test_never_below_the_real_tokenizers(sample: dict) -> None:
    estimate = estimate_tokens(sample["text"])
    assert estimate >= sample["cl100k"], sample["name"]
    assert estimate >= sample["o200k"], sample["name"]


def test_the_samples_cover_every_kind_and_the_estimate_is_not_wildly_high() -> None:
    kinds = {s["kind"] for s in SAMPLES}
    assert kinds == {"english", "markdown", "code", "json"}
    for kind in kinds:
        real = sum(s["cl100k"] for s in SAMPLES if s["kind"] == kind)
        estimated = sum(estimate_tokens(s["text"]) for s in SAMPLES if s["kind"] == kind)
        assert real <= estimated <= 2 * real, kind  # an upper bound that still leaves a budget usable


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("the", 1),
        ("implementation", 3),
        (" the cat", 2),
        ("getUserById", 4),
        ("HTTPServer", 3),
        ("12345", 2),
        ("a 42", 3),
        ("x = 1;\n", 7),
        ("Schäfer", 3),
        ("🙂", 1),
    ],
)
def test_examples(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected


TEXT = st.text(
    alphabet=st.sampled_from(
        list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,;:()[]{}'\"\n\täé/=#*`")
    ),
    max_size=400,
)


@settings(max_examples=400, deadline=None)
@given(TEXT)
@example("\n ")  # "\n" and " ": two pieces (found by hypothesis)
@example("a\n  b")
@example("  0")  # " ", " ", "0": three pieces (found by hypothesis)
def test_never_below_the_pre_tokenizer_pieces(text: str) -> None:
    assert estimate_tokens(text) >= cl100k_pieces(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, max_size=8))
def test_joining_lines_costs_at_most_one_per_newline(parts: list[str]) -> None:
    joined = "\n".join(parts)
    assert estimate_tokens(joined) <= sum(estimate_tokens(p) for p in parts) + max(0, len(parts) - 1)
