"""Numbers written as JavaScript writes them, without JSON: ``String(x)``
(:func:`js_number`) and ``Number.prototype.toFixed`` (:func:`to_fixed`).
Text output needs only these; :mod:`mem_core.js.jsonfmt` (which imports
:mod:`json`) re-exports them for the JSON writer."""

from __future__ import annotations

import math

__all__ = ["js_number", "to_fixed"]


def js_number(x: float | int) -> str:
    """``String(x)`` for a finite number, ``null`` in JSON for NaN/infinities."""
    if isinstance(x, bool):  # pragma: no cover - callers handle bools
        return "true" if x else "false"
    if isinstance(x, int):
        if abs(x) < 2**53:
            return str(x)
        x = float(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    text = repr(x)
    if "e" not in text:
        # Python writes the shortest round-trip digits in positional form
        # from 1e-4 to 1e16, inside JavaScript's positional range (1e-6 to
        # 1e21): the same digits, but for Python's ".0" on a whole number
        return text[:-2] if text.endswith(".0") else text
    return _number_from_digits(text)


def _number_from_digits(text: str) -> str:
    """``String(x)`` from ``repr(x)`` of a finite non-zero float, by its digits
    and exponent (any form of ``repr``: a test holds the positional shortcut
    of :func:`js_number` to this)."""
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    # position of the decimal point relative to the first significant digit
    point = len(whole.lstrip("0")) + exponent if whole.strip("0") else exponent - (len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    n = point  # JS: value = 0.d1d2...dk × 10^n
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp = f"e+{e}" if e >= 0 else f"e-{-e}"
    if k == 1:
        return sign + digits + exp
    return sign + digits[0] + "." + digits[1:] + exp


def to_fixed(x: float | int, digits: int) -> str:
    """``Number.prototype.toFixed(digits)``: the exact binary value rounded
    half up (``(0.0625).toFixed(3)`` is ``0.063``; Python's format gives 0.062)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if abs(x) >= 1e21:
        return js_number(x)
    numerator, denominator = abs(x).as_integer_ratio()
    quotient, remainder = divmod(numerator * 10**digits, denominator)
    if 2 * remainder >= denominator:
        quotient += 1
    text = str(quotient).rjust(digits + 1, "0")
    if digits:
        text = text[:-digits] + "." + text[-digits:]
    return ("-" if x < 0 else "") + text
