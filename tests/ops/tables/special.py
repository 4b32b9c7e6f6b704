"""Table entries for the special functions of ``tensorlib/ops/special_functions.py``.

NumPy has none of these functions, so the entries carry no NumPy reference (``ref=None``): the table checks
them against torch (skipped without it) and runs gradcheck/gradgradcheck, the method and in-place forms and
``out=``. The samples stay where torch's own values are accurate (its Bessel ``J``/``Y`` and Airy kernels are
off by up to 1e-6 between 2 and 15); ``tests/parity/test_special_functions.py`` compares with torch over wide
grids (special points, poles, infinities, promotion, broadcasting) and with mpmath where torch is inaccurate.
"""

from __future__ import annotations

import numpy as np

from tests.ops.opinfo import Const, alias, idx, op, pos, r, s


def _gamma_args(*shape: int) -> np.ndarray:
    """Positive values and negative non-integers, away from the poles."""
    v = r(*shape, lo=0.3, hi=4.0)
    return np.where(r(*shape) > 1.0, -v, v)  # random floats: never an integer


# -- the gamma family --------------------------------------------------------------------------------------

_lgamma = op("lgamma", [s(_gamma_args(2, 3)), s(pos(4) * 3)], None)
alias("special.gammaln", _lgamma)
_digamma = op("digamma", [s(_gamma_args(2, 3)), s(pos(4) * 3)], None)
alias("special.digamma", _digamma)
alias("special.psi", _digamma)
_polygamma = op("polygamma", [s(0, pos(2, 3)), s(1, pos(2, 3) * 2), s(2, _gamma_args(2, 3)), s(3, pos(3))], None)
alias("special.polygamma", _polygamma)
_mvlgamma = op("mvlgamma", [s(pos(2, 3) + 1.5, 1), s(pos(2, 3) + 2.0, 3), s(pos(4) + 3.0, p=4)], None)
alias("special.multigammaln", _mvlgamma)
# differentiable in ``other`` only (torch: "the derivative for 'igamma: input' is not implemented")
_igamma = op("igamma", [s(Const(pos(2, 3) * 2), pos(2, 3) * 2), s(Const(pos(2, 3) * 3), pos(3) * 3),
                        s(Const(pos(2, 1) * 3), pos(1, 3) * 2)], None)
alias("special.gammainc", _igamma)
_igammac = op("igammac", [s(Const(pos(2, 3) * 2), pos(2, 3) * 2), s(Const(pos(2, 3) * 3), pos(3) * 3)], None)
alias("special.gammaincc", _igammac)
# differentiable in ``other`` only; either argument may be a number
op("special.zeta", [s(Const(r(2, 3) + 4.0), pos(2, 3)), s(Const(r(3) + 4.0), pos(2, 3)), s(3.5, pos(2, 3)),
                    s(Const(r(2, 3) + 4.0), 1.5)], None)

# -- Bessel and error-function relatives -------------------------------------------------------------------

_i0 = op("i0", [s(r(2, 3) * 3), s(r(4) * 10)], None)
alias("special.i0", _i0)
op("special.i0e", [s(r(2, 3) * 3), s(r(4) * 30)], None)
op("special.i1", [s(r(2, 3) * 3), s(r(4) * 10)], None)
op("special.i1e", [s(r(2, 3) * 3), s(r(4) * 30)], None)
op("special.erfcx", [s(r(2, 3) * 3), s(pos(4) * 15)], None)
op("special.log_ndtr", [s(r(2, 3) * 4), s(r(4) * 20)], None)
op("special.ndtri", [s(r(2, 3, lo=0.02, hi=0.98)), s(np.array([1e-3, 0.2, 0.5, 0.9]))], None)

# torch gives these no derivative: their results do not require grad
for _name, _sample in (
    # torch's airy_ai (x < -2) and Bessel J/Y (2 < |x| < 25) are off by ~1e-6: the table samples where torch is
    # exact; tests/parity/test_special_functions.py checks those regions against mpmath
    ("airy_ai", r(2, 3, lo=-2.0, hi=4.0)), ("bessel_j0", r(2, 3)), ("bessel_j1", r(2, 3)),
    ("bessel_y0", r(2, 3, lo=0.1, hi=2.0)), ("bessel_y1", r(2, 3, lo=0.1, hi=2.0)), ("modified_bessel_i0", r(2, 3) * 8), ("modified_bessel_i1", r(2, 3) * 8),
    ("modified_bessel_k0", pos(2, 3) * 4), ("modified_bessel_k1", pos(2, 3) * 4),
    ("scaled_modified_bessel_k0", pos(2, 3) * 4), ("scaled_modified_bessel_k1", pos(2, 3) * 4),
    ("spherical_bessel_j0", r(2, 3) * 4),
):
    op("special." + _name, [s(_sample), s(np.array([0.0, 1.0, 3.5]))], None, grad=False)

# -- orthogonal polynomials (no derivative in torch); n an int, an int tensor, or a float tensor (truncated) ----

for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
              "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"):
    op("special." + _name, [s(r(2, 3), 3), s(r(2, 3), idx([[0, 1, 2], [5, 9, 12]])), s(r(2, 3), Const(r(3) * 6 + 6)),
                            s(0.5, idx([0, 3, 10]))], None, grad=False)
for _name in ("t", "u", "v", "w"):
    op(f"special.shifted_chebyshev_polynomial_{_name}",
       [s(r(2, 3, lo=0.0, hi=1.0), 4), s(r(2, 3, lo=-0.2, hi=1.2), idx([[0, 1, 2], [5, 9, 12]]))], None, grad=False)
