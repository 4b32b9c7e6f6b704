"""The log-normal distribution: ``exp`` of a normal variable."""

from __future__ import annotations

from typing import Any

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Any:
        """The mean of ``log(X)``."""
        return self.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> Any:
        """The standard deviation of ``log(X)``."""
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Any:
        """``exp(loc + scale^2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Any:
        """``exp(loc - scale^2)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Any:
        """``(exp(scale^2) - 1) exp(2 loc + scale^2)``."""
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Any:
        """The normal entropy plus ``E[log X] = loc``."""
        return self.base_dist.entropy() + self.loc
