"""Registries from constraints to transforms: ``biject_to`` (bijections) and ``transform_to`` (any onto map).

``biject_to(c)`` returns a bijective :class:`~tensorlib.distributions.transforms.Transform`
from the unconstrained reals onto the region ``c``; ``transform_to(c)`` may
return a non-injective map (e.g. ``softmax`` onto the simplex), useful for
optimisation in an unconstrained space. Factories are looked up by the
constraint's exact type and receive the constraint instance.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint types to factories ``factory(constraint) -> Transform``."""

    def __init__(self) -> None:
        self._registry: dict[type, Callable[[Any], transforms.Transform]] = {}
        super().__init__()

    def register(self, constraint: Any, factory: Callable | None = None) -> Any:
        """Register ``factory`` for a constraint subclass or instance; without ``factory``, a decorator."""
        if factory is None:
            return lambda fn: self.register(constraint, fn)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError("Expected constraint to be either a Constraint subclass or instance, "
                            f"but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: constraints.Constraint) -> transforms.Transform:
        """The transform from the reals onto ``constraint``; NotImplementedError if none is registered."""
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _is_number(value: Any, target: float) -> bool:
    return isinstance(value, numbers.Number) and value == target


def _to_real(constraint: Any) -> transforms.Transform:
    return transforms.identity_transform


def _to_above(constraint: Any) -> transforms.Transform:
    # (lower, inf) and [lower, inf): shift the exponential
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


def _to_below(constraint: Any) -> transforms.Transform:
    # (-inf, upper): reflect and shift the exponential
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


def _to_interval(constraint: Any) -> transforms.Transform:
    low, high = constraint.lower_bound, constraint.upper_bound
    if _is_number(low, 0) and _is_number(high, 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


def _make_structural(registry: ConstraintRegistry) -> None:
    """Register the constraints built from other constraints (independent, cat, stack) on ``registry``."""

    def independent(constraint: Any) -> transforms.Transform:
        return transforms.IndependentTransform(registry(constraint.base_constraint),
                                               constraint.reinterpreted_batch_ndims)

    def cat(constraint: Any) -> transforms.Transform:
        return transforms.CatTransform([registry(c) for c in constraint.cseq], constraint.dim, constraint.lengths)

    def stack(constraint: Any) -> transforms.Transform:
        return transforms.StackTransform([registry(c) for c in constraint.cseq], constraint.dim)

    registry.register(constraints.independent, independent)
    registry.register(constraints.cat, cat)
    registry.register(constraints.stack, stack)


for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _to_real)
    _registry.register(constraints.greater_than, _to_above)
    _registry.register(constraints.greater_than_eq, _to_above)
    _registry.register(constraints.less_than, _to_below)
    _registry.register(constraints.interval, _to_interval)
    _registry.register(constraints.half_open_interval, _to_interval)
    _registry.register(constraints.corr_cholesky, lambda c: transforms.CorrCholeskyTransform())
    _make_structural(_registry)

biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: transforms.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: transforms.PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite, lambda c: transforms.PositiveDefiniteTransform())
