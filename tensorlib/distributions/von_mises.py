"""The von Mises distribution: a normal-like distribution of angles."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

_LOG_2PI = math.log(2 * math.pi)


def _best_fisher_r(kappa: Any) -> Any:
    """The parameter ``r = (1 + rho^2) / (2 rho)`` of Best and Fisher's wrapped-Cauchy envelope.

    ``rho = (tau - sqrt(2 tau)) / (2 kappa)`` with ``tau = 1 + sqrt(1 + 4 kappa^2)``,
    rewritten without the cancellation it suffers for small ``kappa``:
    ``rho = 2 kappa tau / ((s + 1)(tau + sqrt(2 tau)))`` with ``s = sqrt(1 + 4 kappa^2)``.
    """
    s = (1 + 4 * kappa * kappa).sqrt()
    tau = 1 + s
    rho = 2 * kappa * tau / ((s + 1) * (tau + (2 * tau).sqrt()))
    return (1 + rho * rho) / (2 * rho)


class VonMises(Distribution):
    """Angles with density ``exp(concentration * cos(x - loc)) / (2 pi I0(concentration))``.

    Samples are wrapped to ``[-pi, pi)``; there is no ``rsample``.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}  # noqa: RUF012
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(VonMises, _instance)
        new.loc = self.loc.expand(shape)
        new.concentration = self.concentration.expand(shape)
        super(VonMises, new).__init__(shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """The circular mean, ``loc``."""
        return self.loc

    @property
    def mode(self) -> Any:
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - _t.special.i1e(k) / _t.special.i0e(k)

    def log_prob(self, value: Any) -> Any:
        """``k (cos(x - loc) - 1) - log(2 pi) - log(i0e(k))`` (``i0e`` keeps large ``k`` finite)."""
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * ((value - self.loc).cos() - 1) - _LOG_2PI - _t.special.i0e(k).log()

    def sample(self, sample_shape: Any = ()) -> Any:
        """Angles in ``[-pi, pi)`` by Best and Fisher's rejection method (no gradient)."""
        shape = tuple(self._extended_shape(sample_shape))
        with _t.no_grad():
            kappa = self.concentration.detach().double().expand(shape)
            r = _best_fisher_r(kappa)
            cosines = _t.zeros(shape, dtype=_t.float64)
            pending = _t.ones(shape, dtype=_t.bool)
            while bool(pending.any()):
                u1, u2 = _t.rand(shape, dtype=_t.float64), _t.rand(shape, dtype=_t.float64)
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | (((c / u2).log() + 1 - c) >= 0)
                take = pending & accept
                cosines = _t.where(take, f, cosines)
                pending = pending & ~accept
            sign = _t.where(_t.rand(shape, dtype=_t.float64) < 0.5, -1.0, 1.0)
            theta = sign * cosines.clamp(-1.0, 1.0).acos()
            wrapped = (theta + self.loc.double() + math.pi).remainder(2 * math.pi) - math.pi
            return wrapped.to(self.loc.dtype)
