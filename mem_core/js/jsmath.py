"""Bit-exact ports of JavaScript's ``Math.log`` and ``Math.pow`` (Node.js v20).

Why this exists: V8 does not call the C library for these functions.
``Math.log`` is V8's port of fdlibm's ``__ieee754_log`` and ``Math.pow`` /
``**`` is V8's port of fdlibm's ``__ieee754_pow`` (``base::ieee754::pow``,
a.k.a. ``legacy::pow`` in later V8; node v20 ships V8 11.3, which has no
``--use-std-math-pow`` switch).  Python's ``math.log`` and ``**`` use glibc,
whose results differ from fdlibm's by one ulp on a few percent of inputs
(e.g. ``Math.log(3)`` is ``1.0986122886681096`` but ``math.log(3)`` is
``1.0986122886681098``).  Since our output must be byte-identical to the
Node.js tool's, anything that feeds a logarithm or a power into a printed
number must go through these functions instead.

Both functions re-implement the fdlibm algorithms step by step with the same
constants and the same order of floating-point operations; Python floats are
IEEE binary64 with round-to-nearest and no fused multiply-add, so every
intermediate rounds exactly as in the C code.  The 32-bit "high word" /
"low word" manipulations are done through ``struct``.

Golden vectors produced by node live in ``tests/core/data/jsmath_vectors.json``
(generator: ``tests/core/data/make_jsmath_vectors.js``).
"""

from __future__ import annotations

import math
import struct

__all__ = ["js_log", "js_pow"]

_D = struct.Struct("<d")
_W = struct.Struct("<II")  # (low word, high word) of a little-endian double
_pack_d = _D.pack
_unpack_d = _D.unpack
_pack_w = _W.pack
_unpack_w = _W.unpack
_ZERO4 = b"\0\0\0\0"  # a zero low word, to prepend to a high word

_INF = math.inf
_NAN = math.nan
_sqrt = math.sqrt
_ldexp = math.ldexp

# ---------------------------------------------------------------------------
# log  (fdlibm e_log.c)
# ---------------------------------------------------------------------------

_LN2_HI = 6.93147180369123816490e-01  # 3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 3dea39ef 35793c76
_TWO54 = 1.80143985094819840000e16  # 43500000 00000000
_LG1 = 6.666666666666735130e-01  # 3FE55555 55555593
_LG2 = 3.999999999940941908e-01  # 3FD99999 9997FA04
_LG3 = 2.857142874366239149e-01  # 3FD24924 94229359
_LG4 = 2.222219843214978396e-01  # 3FCC71C5 1D8E78AF
_LG5 = 1.818357216161805012e-01  # 3FC74664 96CB03DE
_LG6 = 1.531383769920937332e-01  # 3FC39A09 D078C69F
_LG7 = 1.479819860511658591e-01  # 3FC2F112 DF3E5244


def js_log(x: float) -> float:
    """``Math.log(x)`` exactly as node v20 computes it."""
    lx, hx = _unpack_w(_pack_d(x))  # hx is the unsigned high word here
    k = 0
    if hx < 0x00100000 or hx >= 0x80000000:  # x < 2**-1022 (signed compare)
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -_INF  # log(+-0) = -inf
        if hx >= 0x80000000:
            return _NAN  # log(negative or NaN with sign bit) = NaN
        k = -54
        x *= _TWO54  # subnormal: scale up
        lx, hx = _unpack_w(_pack_d(x))
    if hx >= 0x7FF00000:
        return x + x  # +inf or NaN
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    # normalize x or x/2 (keep the low word)
    x = _unpack_d(_pack_w(lx, hx | (i ^ 0x3FF00000)))[0]
    k += i >> 20
    f = x - 1.0
    if (0x000FFFFF & (2 + hx)) < 3:  # -2**-20 <= f < 2**-20
        if f == 0.0:
            if k == 0:
                return 0.0
            dk = float(k)
            return dk * _LN2_HI + dk * _LN2_LO
        R = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0:
            return f - R
        dk = float(k)
        return dk * _LN2_HI - ((R - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    dk = float(k)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    i |= j
    R = t2 + t1
    if i > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + R))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + R) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - R)
    return dk * _LN2_HI - ((s * (f - R) - dk * _LN2_LO) - f)


# ---------------------------------------------------------------------------
# pow  (fdlibm e_pow.c, as ported to V8's base::ieee754::pow)
# ---------------------------------------------------------------------------

_BP = (1.0, 1.5)
_DP_H = (0.0, 5.84962487220764160156e-01)  # 0x3FE2B803, 0x40000000
_DP_L = (0.0, 1.35003920212974897128e-08)  # 0x3E4CFDEB, 0x43CFD006
_TWO53 = 9007199254740992.0  # 0x43400000, 0x00000000
# poly coefs for (3/2)*(log(x)-2s-2/3*s**3)
_L1 = 5.99999999999994648725e-01  # 0x3FE33333, 0x33333303
_L2 = 4.28571428578550184252e-01  # 0x3FDB6DB6, 0xDB6FABFF
_L3 = 3.33333329818377432918e-01  # 0x3FD55555, 0x518F264D
_L4 = 2.72728123808534006489e-01  # 0x3FD17460, 0xA91D4101
_L5 = 2.30660745775561754067e-01  # 0x3FCD864A, 0x93C9DB65
_L6 = 2.06975017800338417784e-01  # 0x3FCA7E28, 0x4A454EEF
_P1 = 1.66666666666666019037e-01  # 0x3FC55555, 0x5555553E
_P2 = -2.77777777770155933842e-03  # 0xBF66C16C, 0x16BEBD93
_P3 = 6.61375632143793436117e-05  # 0x3F11566A, 0xAF25DE2C
_P4 = -1.65339022054652515390e-06  # 0xBEBBBD41, 0xC5D26BF1
_P5 = 4.13813679705723846039e-08  # 0x3E663769, 0x72BEA4D0
_LG2_ = 6.93147180559945286227e-01  # 0x3FE62E42, 0xFEFA39EF
_LG2_H = 6.93147182464599609375e-01  # 0x3FE62E43, 0x00000000
_LG2_L = -1.90465429995776804525e-09  # 0xBE205C61, 0x0CA86C39
_OVT = 8.0085662595372944372e-17  # -(1024-log2(ovfl+.5ulp))
_CP = 9.61796693925975554329e-01  # 0x3FEEC709, 0xDC3A03FD = 2/(3ln2)
_CP_H = 9.61796700954437255859e-01  # 0x3FEEC709, 0xE0000000 = (float)cp
_CP_L = -7.02846165095275826516e-09  # 0xBE3E2FE0, 0x145B01F5 = tail of cp_h
_IVLN2 = 1.44269504088896338700e00  # 0x3FF71547, 0x652B82FE = 1/ln2
_IVLN2_H = 1.44269502162933349609e00  # 0x3FF71547, 0x60000000 = 24b 1/ln2
_IVLN2_L = 1.92596299112661746887e-08  # 0x3E54AE0B, 0xF85DDF44 = 1/ln2 tail

# (|x|, t1, t2) of the last log2 computed by js_pow; replaced atomically.
_last_log2 = (-1.0, 0.0, 0.0)


def js_pow(x: float, y: float) -> float:
    """``Math.pow(x, y)`` / ``x ** y`` exactly as node v20 computes it."""
    global _last_log2
    unpack_w = _unpack_w
    pack_w = _pack_w
    pack_d = _pack_d
    unpack_d = _unpack_d

    lx, hx = unpack_w(pack_d(x))
    ly, hyu = unpack_w(pack_d(y))
    ix = hx & 0x7FFFFFFF
    iy = hyu & 0x7FFFFFFF
    if hx >= 0x80000000:  # make the high words signed int32
        hx -= 0x100000000
    hy = hyu - 0x100000000 if hyu >= 0x80000000 else hyu

    # y == 0: x**0 = 1 (even for NaN x)
    if (iy | ly) == 0:
        return 1.0
    # NaN in either argument
    if ix > 0x7FF00000 or (ix == 0x7FF00000 and lx != 0) or iy > 0x7FF00000 or (iy == 0x7FF00000 and ly != 0):
        return _NAN

    # yisint: 0 = y not an integer, 1 = odd integer, 2 = even integer
    # (only needed when x < 0)
    yisint = 0
    if hx < 0:
        if iy >= 0x43400000:
            yisint = 2
        elif iy >= 0x3FF00000:
            k = (iy >> 20) - 0x3FF
            if k > 20:
                j = ly >> (52 - k)
                if (j << (52 - k)) == ly:
                    yisint = 2 - (j & 1)
            elif ly == 0:
                j = iy >> (20 - k)
                if (j << (20 - k)) == iy:
                    yisint = 2 - (j & 1)

    # special values of y
    if ly == 0:
        if iy == 0x7FF00000:  # y is +-inf
            if ((ix - 0x3FF00000) | lx) == 0:
                return _NAN  # (+-1)**+-inf is NaN in JS
            if ix >= 0x3FF00000:  # (|x|>1)**+-inf = inf, 0
                return y if hy >= 0 else 0.0
            return -y if hy < 0 else 0.0  # (|x|<1)**-,+inf = inf, 0
        if iy == 0x3FF00000:  # y is +-1
            if hy < 0:
                if x == 0.0:
                    return math.copysign(_INF, x)
                return 1.0 / x
            return float(x)
        if hy == 0x40000000:  # y is 2
            x = float(x)
            return x * x
        if hy == 0x3FE00000 and hx >= 0:  # y is 0.5, x >= +0
            return _sqrt(x)

    ax = abs(x)
    # special values of x: +-0, +-inf, +-1
    if lx == 0 and (ix == 0x7FF00000 or ix == 0 or ix == 0x3FF00000):
        z = float(ax)
        if hy < 0:
            z = _INF if z == 0.0 else 1.0 / z
        if hx < 0:
            if ((ix - 0x3FF00000) | yisint) == 0:
                return _NAN  # (-1)**non-int
            if yisint == 1:
                z = -z  # (x<0)**odd = -(|x|**odd)
        return z

    n = (hx >> 31) + 1  # 0 if x < 0 else 1
    if (n | yisint) == 0:
        return _NAN  # (x<0)**(non-int)
    s = 1.0  # sign of the result
    if (n | (yisint - 1)) == 0:
        s = -1.0  # (-ve)**(odd int)

    if iy > 0x41E00000:  # |y| > 2**31
        if iy > 0x43F00000:  # |y| > 2**64: must over/underflow
            if ix <= 0x3FEFFFFF:
                return _INF if hy < 0 else 0.0
            if ix >= 0x3FF00000:
                return _INF if hy > 0 else 0.0
        # over/underflow if x is not close to one
        if ix < 0x3FEFFFFF:
            return s * _INF if hy < 0 else s * 0.0
        if ix > 0x3FF00000:
            return s * _INF if hy > 0 else s * 0.0
        # |1-x| <= 2**-20: log(x) by x-x^2/2+x^3/3-x^4/4
        t = ax - 1.0
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
        u = _IVLN2_H * t
        v = t * _IVLN2_L - w * _IVLN2
        t1 = u + v
        t1 = unpack_d(_ZERO4 + pack_d(t1)[4:])[0]
        t2 = v - (t1 - u)
    else:
        # log2(|x|) = t1 + t2 depends on |x| only: remember the last one,
        # since callers typically use a constant base (0.5 ** t, 10 ** t).
        last = _last_log2
        if last[0] == ax:  # ax is finite and > 0 here, so == means same bits
            t1 = last[1]
            t2 = last[2]
        else:
            key = ax
            n = 0
            alo = lx
            if ix < 0x00100000:  # subnormal x
                ax *= _TWO53
                n -= 53
                alo, ix = unpack_w(pack_d(ax))
            n += (ix >> 20) - 0x3FF
            j = ix & 0x000FFFFF
            ix = j | 0x3FF00000  # normalize ix
            if j <= 0x3988E:  # |x| < sqrt(3/2)
                k = 0
            elif j < 0xBB67A:  # |x| < sqrt(3)
                k = 1
            else:
                k = 0
                n += 1
                ix -= 0x00100000
            ax = unpack_d(pack_w(alo, ix))[0]

            # ss = s_h + s_l = (x-1)/(x+1) or (x-1.5)/(x+1.5)
            bp = _BP[k]
            u = ax - bp
            v = 1.0 / (ax + bp)
            ss = u * v
            s_h = unpack_d(_ZERO4 + pack_d(ss)[4:])[0]
            # t_h = ax + bp[k], high part
            t_h = unpack_d(pack_w(0, ((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18)))[0]
            t_l = ax - (t_h - bp)
            s_l = v * ((u - s_h * t_h) - s_h * t_l)
            # log(ax)
            s2 = ss * ss
            r = s2 * s2 * (_L1 + s2 * (_L2 + s2 * (_L3 + s2 * (_L4 + s2 * (_L5 + s2 * _L6)))))
            r += s_l * (s_h + ss)
            s2 = s_h * s_h
            t_h = 3.0 + s2 + r
            t_h = unpack_d(_ZERO4 + pack_d(t_h)[4:])[0]
            t_l = r - ((t_h - 3.0) - s2)
            # u + v = ss*(1+...)
            u = s_h * t_h
            v = s_l * t_h + t_l * ss
            # 2/(3log2)*(ss+...)
            p_h = u + v
            p_h = unpack_d(_ZERO4 + pack_d(p_h)[4:])[0]
            p_l = v - (p_h - u)
            z_h = _CP_H * p_h  # cp_h + cp_l = 2/(3*log2)
            z_l = _CP_L * p_h + p_l * _CP + _DP_L[k]
            # log2(ax) = (ss+..)*2/(3*log2) = n + dp_h + z_h + z_l
            t = float(n)
            dp_h = _DP_H[k]
            t1 = ((z_h + z_l) + dp_h) + t
            t1 = unpack_d(_ZERO4 + pack_d(t1)[4:])[0]
            t2 = z_l - (((t1 - t) - dp_h) - z_h)
            _last_log2 = (key, t1, t2)

    # split y into y1 + y2 and compute (y1+y2)*(t1+t2)
    y1 = unpack_d(pack_w(0, hyu))[0]
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    i, ju = unpack_w(pack_d(z))
    j = ju - 0x100000000 if ju >= 0x80000000 else ju
    if j >= 0x40900000:  # z >= 1024
        if ((j - 0x40900000) | i) != 0:  # z > 1024
            return s * _INF
        if p_l + _OVT > z - p_h:
            return s * _INF
    elif (j & 0x7FFFFFFF) >= 0x4090CC00:  # z <= -1075
        if ((ju - 0xC090CC00) | i) != 0:  # z < -1075
            return s * 0.0
        if p_l <= z - p_h:
            return s * 0.0

    # 2**(p_h+p_l)
    i = j & 0x7FFFFFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE00000:  # |z| > 0.5: n = [z+0.5]
        n = j + (0x00100000 >> (k + 1))
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF  # new k for n
        t = unpack_d(pack_w(0, (n & ~(0x000FFFFF >> k)) & 0xFFFFFFFF))[0]
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = p_l + p_h
    t = unpack_d(_ZERO4 + pack_d(t)[4:])[0]
    u = t * _LG2_H
    v = (p_l - (t - p_h)) * _LG2_ + t * _LG2_L
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    r = (z * t1) / ((t1 - 2.0) - (w + z * w))
    z = 1.0 - (r - z)
    zlo, zhi = unpack_w(pack_d(z))
    j = zhi + (n << 20)
    if (j >> 20) <= 0:
        z = _ldexp(z, n)  # subnormal output
    else:
        z = unpack_d(pack_w(zlo, j))[0]
    return s * z
