"""Constraints: the regions a distribution's parameters and values live in.

``constraint.check(value)`` gives a bool tensor over the batch (the last
``event_dim`` dims of ``value`` form one event and are reduced).
``is_discrete`` says whether the region holds integers only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import tensorlib as _t

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval", "is_dependent",
    "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer", "positive_semidefinite",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """A region of values; ``check(value)`` is true where ``value`` lies in it."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """A bool tensor of the batch shape: where ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


def _reduce_event(result: Any, ndims: int) -> Any:
    """``result`` with its last ``ndims`` dims reduced by ``all``."""
    if ndims == 0:
        return result
    return result.reshape(tuple(result.shape[: result.dim() - ndims]) + (-1,)).all(-1)


class _Dependent(Constraint):
    """A placeholder for a support or parameter whose region depends on other parameters."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> _Dependent:
        """A dependent constraint with the given static facts (the ones not given are kept)."""
        return _Dependent(is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
                          event_dim=self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent placeholder (``dependent`` or a ``dependent_property``)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution whose value is a constraint depending on the parameters.

    Read on the class it is a dependent placeholder; read on an instance it
    calls the getter. Used as a decorator, with or without arguments.
    """

    def __init__(self, fn: Callable | None = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its rightmost ``reinterpreted_batch_ndims`` batch dims made part of the event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"base_constraint must be a Constraint, not {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"reinterpreted_batch_ndims must be a non-negative int, got {reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return _reduce_event(result, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: its components' support, with the component dim reduced."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"base_constraint must be a Constraint, not {type(base_constraint).__name__}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Any) -> Any:
        value = value.unsqueeze(-1 - self.event_dim)  # broadcast against the component dim
        result = self.base_constraint.check(value)
        return _reduce_event(result, 1) if result.dim() else result

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


MixtureSameFamilyConstraint = _MixtureSameFamilyConstraint


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerLessThan(Constraint):
    is_discrete = True

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerLessThan(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Real(Constraint):
    def check(self, value: Any) -> Any:
        return value == value  # false only at nan


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return self.lower_bound <= value

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self) -> str:
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    """Non-negative vectors summing to one (within 1e-6) over the last dim."""

    event_dim = 1

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative integer count vectors whose total is at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Multinomial(upper_bound={self.upper_bound})"


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return _t.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=_t.bool)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return _reduce_event(value.tril() == value, 2)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        lower = _reduce_event(value.tril() == value, 2)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit Euclidean norm."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        tol = _t.finfo(value.dtype).eps * value.shape[-1] * 10
        unit_rows = ((value * value).sum(-1).sqrt() - 1).abs() <= tol
        return lower_cholesky.check(value) & unit_rows.all(-1)


class _Symmetric(_Square):
    def check(self, value: Any) -> Any:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _reduce_event(_t.isclose(value, value.mT, atol=1e-6), 2)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return (_t.linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value: Any) -> Any:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return _t.linalg.cholesky_ex(value).info == 0


def _lengths_of(cseq: Sequence[Constraint], lengths: Sequence[int] | None) -> list[int]:
    lengths = [1] * len(cseq) if lengths is None else list(lengths)
    if len(lengths) != len(cseq):
        raise ValueError(f"expected one length per constraint, got {len(lengths)} lengths for {len(cseq)} constraints")
    return lengths


class _Cat(Constraint):
    """Each constraint of ``cseq`` applied to its slice (of ``lengths``) along ``dim``."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0, lengths: Sequence[int] | None = None) -> None:
        self.cseq = list(cseq)
        if not all(isinstance(c, Constraint) for c in self.cseq):
            raise TypeError("cat expects a sequence of Constraint objects")
        self.lengths = _lengths_of(self.cseq, lengths)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Any) -> Any:
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"dim {self.dim} is out of range for a value with {value.dim()} dims")
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _t.cat(checks, self.dim)


class _Stack(Constraint):
    """Each constraint of ``cseq`` applied to its index along ``dim``."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0) -> None:
        self.cseq = list(cseq)
        if not all(isinstance(c, Constraint) for c in self.cseq):
            raise TypeError("stack expects a sequence of Constraint objects")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Any) -> Any:
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"dim {self.dim} is out of range for a value with {value.dim()} dims")
        if value.size(self.dim) != len(self.cseq):
            raise ValueError(f"expected {len(self.cseq)} entries along dim {self.dim}, got {value.size(self.dim)}")
        parts = value.unbind(self.dim)
        return _t.stack([c.check(v) for c, v in zip(self.cseq, parts)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
