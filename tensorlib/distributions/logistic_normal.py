"""The logistic-normal distribution on the simplex."""

from __future__ import annotations

from typing import Any

from . import constraints
from .independent import _expand_dist
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform


class LogisticNormal(TransformedDistribution):
    """A normal vector (``loc``, ``scale``, independent entries) mapped onto the simplex by stick breaking.

    Its event has one more entry than ``loc``: ``K`` normals give a point of the ``K+1``-simplex.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}  # noqa: RUF012
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        normal: Any = Normal(loc, scale, validate_args=validate_args)
        if not normal.batch_shape:
            normal = _expand_dist(normal, (1,))  # one normal still makes a 2-simplex
        super().__init__(normal, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        """This distribution with its batch expanded to ``batch_shape``."""
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Any:
        """The means of the underlying normals."""
        return self.base_dist.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> Any:
        """The standard deviations of the underlying normals."""
        return self.base_dist.base_dist.scale  # type: ignore[attr-defined]
