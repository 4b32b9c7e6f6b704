"""Invertible (or at least differentiable) maps between constrained spaces, as ``torch.distributions.transforms``.

A :class:`Transform` maps values of its ``domain`` to its ``codomain``;
``t.inv`` is the map back and ``t.log_abs_det_jacobian(x, y)`` gives
``log |dy/dx|`` (summed over the event dims of the domain). Transforms are the
building blocks of :class:`~tensorlib.distributions.TransformedDistribution`
and of the constraint registries ``biject_to`` / ``transform_to``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import tensorlib as _t

from . import constraints
from .utils import clamp_probs as _clamp_probs  # noqa: F401  (orders the import cycle for mypy)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


def _sum_event(value: Any, ndims: int) -> Any:
    """``value`` summed over its last ``ndims`` dims (a number is returned unchanged)."""
    if ndims == 0 or not isinstance(value, _t.Tensor):
        return value
    lead = tuple(value.shape[: value.dim() - ndims])
    return value.reshape(lead + (-1,)).sum(-1)


def _same_value(a: Any, b: Any) -> bool:
    """Whether two parameters (numbers or tensors) are equal everywhere."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return bool(a == b)
    try:
        return bool(_t.as_tensor(a == b).all().item())
    except (RuntimeError, ValueError, TypeError):
        return False


def _like_shape(template: Any, shape: tuple[int, ...]) -> Any:
    """``shape`` as a Size when ``template`` is one, else as a plain tuple (as the caller passed it)."""
    return _t.Size(shape) if isinstance(template, _t.Size) else tuple(shape)


def _shape_of(value: Any) -> tuple[int, ...]:
    return tuple(value.shape) if isinstance(value, _t.Tensor) else ()


class Transform:
    """A map ``y = t(x)`` from ``domain`` to ``codomain``, with its inverse ``t.inv`` and log-Jacobian.

    With ``cache_size=1`` the most recent ``(x, y)`` pair is remembered, so that
    inverting a value just produced (the same object) returns the original ``x``.
    """

    bijective = False
    domain: constraints.Constraint  # set by each subclass
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._last_pair: tuple[Any, Any] | None = None
        self._inverse_ref: Transform | None = None

    @property
    def event_dim(self) -> int:
        """The number of rightmost dims forming one event (when domain and codomain agree on it)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse map; built once and kept, and its own ``inv`` is this transform."""
        if self._inverse_ref is None:
            self._inverse_ref = _InverseTransform(self)
        return self._inverse_ref

    @property
    def sign(self) -> Any:
        """``+1`` or ``-1``: whether a monotone scalar transform increases or decreases."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Any) -> Any:
        """``y = t(x)`` (looked up in the cache when ``x`` is the last input seen)."""
        if self._cache_size == 0:
            return self._call(x)
        if self._last_pair is not None and self._last_pair[0] is x:
            return self._last_pair[1]
        y = self._call(x)
        self._last_pair = (x, y)
        return y

    def _inv_call(self, y: Any) -> Any:
        """``x = t^-1(y)`` (looked up in the cache when ``y`` is the last output seen)."""
        if self._cache_size == 0:
            return self._inverse(y)
        if self._last_pair is not None and self._last_pair[1] is y:
            return self._last_pair[0]
        x = self._inverse(y)
        self._last_pair = (x, y)
        return x

    def _call(self, x: Any) -> Any:
        raise NotImplementedError

    def _inverse(self, y: Any) -> Any:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |det dy/dx|`` for the pair ``(x, y = t(x))``, over the domain's event dims."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        """The shape of ``t(x)`` for ``x`` of the given shape."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of ``t.inv(y)`` for ``y`` of the given shape."""
        return shape

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_inverse_ref"] = None
        return state

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: every query is answered by the forward transform with roles swapped."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._forward = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The forward transform's codomain."""
        return self._forward.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        """The forward transform's domain."""
        return self._forward.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether the forward transform is a bijection."""
        return self._forward.bijective

    @property
    def sign(self) -> Any:
        """The forward transform's sign (an inverse is monotone the same way)."""
        return self._forward.sign

    @property
    def inv(self) -> Transform:
        """The forward transform itself."""
        return self._forward

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        return self._forward.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._forward == other._forward

    __hash__ = object.__hash__

    def __call__(self, x: Any) -> Any:
        """The forward transform's inverse at ``x`` (sharing its cache)."""
        return self._forward._inv_call(x)

    def _inv_call(self, y: Any) -> Any:
        return self._forward(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Minus the forward transform's log-Jacobian at ``(y, x)``."""
        return -self._forward.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        return self._forward.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        return self._forward.forward_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._forward!r})"


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied one after another (an empty list is the identity)."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        """The first part's domain, widened to as many event dims as the whole chain consumes."""
        if not self.parts:
            return constraints.real
        first = self.parts[0].domain
        needed = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            needed = max(needed + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        if needed > first.event_dim:
            first = constraints.independent(first, needed - first.event_dim)
        return first

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        """The last part's codomain, widened to as many event dims as the whole chain produces."""
        if not self.parts:
            return constraints.real
        last = self.parts[-1].codomain
        needed = self.parts[0].domain.event_dim
        for part in self.parts:
            needed = max(needed + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        if needed > last.event_dim:
            last = constraints.independent(last, needed - last.event_dim)
        return last

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is a bijection."""
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        """The product of the parts' signs."""
        result: Any = 1
        for p in self.parts:
            result = result * p.sign
        return result

    @property
    def inv(self) -> Transform:
        """The inverses of the parts in reverse order (cached both ways)."""
        if self._inverse_ref is None:
            backwards = ComposeTransform([p.inv for p in reversed(self.parts)])
            backwards._inverse_ref = self
            self._inverse_ref = backwards
        return self._inverse_ref

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Any) -> Any:
        """Applies the parts one after another."""
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The sum of the parts' log-Jacobians, each summed over the event dims it lacks."""
        if not self.parts:
            return _t.zeros_like(x)
        values = [x]
        for part in self.parts[:-1]:
            values.append(part(values[-1]))
        values.append(y)
        total: Any = 0
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, values[:-1], values[1:]):
            total = total + _sum_event(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its rightmost ``reinterpreted_batch_ndims`` batch dims treated as event dims."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        """The constraint the inputs live in."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        """The constraint the outputs live in."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether the map is a bijection."""
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        """The sign of the derivative (for monotone scalar maps)."""
        return self.base_transform.sign

    def _call(self, x: Any) -> Any:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Any) -> Any:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The base log-Jacobian summed over the reinterpreted dims."""
        return _sum_event(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims into ``out_shape`` (a volume-preserving bijection)."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = _t.Size(in_shape)
        self.out_shape = _t.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        """The constraint the inputs live in."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        """The constraint the outputs live in."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        lead = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(lead + tuple(self.out_shape))

    def _inverse(self, y: Any) -> Any:
        lead = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(lead + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Zero: reshaping preserves volume."""
        return x.new_zeros(tuple(x.shape[: x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap_tail(shape: Any, old: _t.Size, new: _t.Size) -> Any:
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {old}")
        return _t.Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        return self._swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        return self._swap_tail(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log exp'(x) = x``."""
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.exponent = exponent if isinstance(exponent, _t.Tensor) else _t.tensor(float(exponent))
        # a number exponent is used as a Python float, so it keeps full precision for any input dtype
        self._power: Any = self.exponent if isinstance(exponent, _t.Tensor) else float(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self._power, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        """The sign of the exponent."""
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and _same_value(self.exponent, other.exponent)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.pow(self._power)

    def _inverse(self, y: Any) -> Any:
        return y.pow(1 / self._power)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        # d(x^p)/dx = p x^(p-1) = p y / x
        """``log |exponent * y / x|``."""
        return (self._power * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        return _t.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        return _t.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))


def _bounded_sigmoid(x: Any) -> Any:
    """``sigmoid(x)`` kept in ``[tiny, 1 - eps]``: never exactly 0 or 1, so its logit stays finite."""
    info = _t.finfo(x.dtype)
    return _t.sigmoid(x).clamp(min=info.tiny, max=1 - info.eps)


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, kept inside the open unit interval."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return _bounded_sigmoid(x)

    def _inverse(self, y: Any) -> Any:
        info = _t.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        # sigma'(x) = sigma(x) sigma(-x); log sigma(x) = -softplus(-x)
        """``log sigmoid(x) + log sigmoid(-x)``."""
        softplus = _t.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        return _t.atanh(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        # 1 - tanh(x)^2 = 4 e^{-2x} / (1 + e^{-2x})^2, written with softplus for stability
        """``log(1 - tanh(x)^2)``, computed stably."""
        return 2.0 * (math.log(2.0) - x - _t.nn.functional.softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return _t.nn.functional.softplus(x)

    def _inverse(self, y: Any) -> Any:
        # log(e^y - 1) = y + log(1 - e^{-y})
        return y + (-(-y).expm1()).log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log sigmoid(x)``."""
        return -_t.nn.functional.softplus(-x)


class AbsTransform(Transform):
    """``y = |x|`` (not injective: its inverse picks the non-negative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.abs()

    def _inverse(self, y: Any) -> Any:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, over the rightmost ``event_dim`` dims."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        """The number of rightmost dims forming one event."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        """The constraint the inputs live in."""
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        """The constraint the outputs live in."""
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, AffineTransform) and _same_value(self.loc, other.loc)
                and _same_value(self.scale, other.scale))

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        """The sign of ``scale``."""
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """``log |scale|``, summed over the event dims."""
        if isinstance(self.scale, numbers.Real):
            per_entry = _t.full_like(x, math.log(abs(float(self.scale))))
        else:
            per_entry = self.scale.abs().log()
            full = _t.broadcast_shapes(tuple(x.shape), tuple(per_entry.shape))
            per_entry = per_entry.expand(full)
        if self._event_dim:
            per_entry = _sum_event(per_entry, self._event_dim)
            return per_entry.expand(tuple(x.shape[: x.dim() - self._event_dim]))
        return per_entry.expand(tuple(x.shape))

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        return _t.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        return _t.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))


def _check_vector_shape(shape: Any) -> None:
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (onto the simplex; not injective, the inverse is ``log``)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        shifted = (x - x.max(-1, keepdim=True)[0]).exp()
        return shifted / shifted.sum(-1, keepdim=True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        _check_vector_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        _check_vector_shape(shape)
        return shape


class StickBreakingTransform(Transform):
    """A bijection from ``R^K`` onto the interior of the ``K+1``-simplex by stick breaking.

    Entry ``k`` takes the fraction ``sigmoid(x_k - log(K - k))`` of what remains
    of the stick; the remainder is the last coordinate. The offsets make
    ``x = 0`` map to the uniform point of the simplex.
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _log_offsets(k: int, like: Any) -> Any:
        return _t.arange(k, 0, -1, dtype=like.dtype).log()

    def _call(self, x: Any) -> Any:
        fractions = _bounded_sigmoid(x - self._log_offsets(x.shape[-1], x))
        remaining = (1 - fractions).cumprod(-1)
        pad = _t.nn.functional.pad
        return pad(fractions, [0, 1], value=1.0) * pad(remaining, [1, 0], value=1.0)

    def _inverse(self, y: Any) -> Any:
        head = y[..., :-1]
        left = (1 - head.cumsum(-1)).clamp(min=_t.finfo(y.dtype).tiny)
        return head.log() - left.log() + self._log_offsets(head.shape[-1], y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The log-determinant of the triangular stick-breaking Jacobian."""
        # triangular Jacobian: dy_k/dx_k = y_k * (1 - fraction_k)
        shifted = x - self._log_offsets(x.shape[-1], x)
        return (_t.nn.functional.logsigmoid(-shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        _check_vector_shape(shape)
        return _like_shape(shape, tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        _check_vector_shape(shape)
        return _like_shape(shape, tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower-triangular one with positive diagonal: keep the strict lower part, exp the diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """A square matrix to a positive definite one: ``L L^T`` with ``L`` from :class:`LowerCholeskyTransform`."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: Any) -> Any:
        factor = LowerCholeskyTransform()(x)
        return factor @ factor.mT

    def _inverse(self, y: Any) -> Any:
        return LowerCholeskyTransform().inv(_t.linalg.cholesky(y))


def _strict_lower_positions(n: int) -> tuple[Any, Any]:
    """Row and column indices of the strictly lower triangle of an ``n x n`` matrix, row by row."""
    rows, cols = _t.tril_indices(n, n, -1)
    return rows, cols


def _vector_to_strict_lower(vec: Any, n: int) -> Any:
    """An ``n x n`` matrix with ``vec`` (row by row) in its strictly lower triangle and zeros elsewhere."""
    rows, cols = _strict_lower_positions(n)
    slots = _t.zeros((n, n), dtype=_t.int64)
    slots[rows, cols] = _t.arange(1, rows.numel() + 1)  # slot 0 reads the zero padded in front
    padded = _t.nn.functional.pad(vec, [1, 0], value=0.0)
    return padded[..., slots]


def _strict_lower_to_vector(mat: Any, offset: int = -1) -> Any:
    n = mat.shape[-1]
    rows, cols = _t.tril_indices(n, n, offset)
    return mat[..., rows, cols]


class CorrCholeskyTransform(Transform):
    """A vector of ``D(D-1)/2`` reals to the Cholesky factor of a ``D x D`` correlation matrix.

    Each entry is squashed by ``tanh`` to a partial correlation in ``(-1, 1)``;
    row ``i`` of the factor then takes, left to right, that fraction of the
    unit norm not yet used by the previous entries of the row (stick breaking
    on squared norms), and the diagonal takes what is left.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Any) -> Any:
        eps = _t.finfo(x.dtype).eps
        partial = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        n = self._side(x.shape[-1])
        strict = _vector_to_strict_lower(partial, n)
        # fraction of each row's unit norm still unused before column j: prod_{k<j} (1 - r_k^2)
        room = (1 - strict * strict).sqrt().cumprod(-1)
        room = _t.nn.functional.pad(room[..., :-1], [1, 0], value=1.0)
        eye = _t.eye(n, dtype=x.dtype)
        return (strict + eye) * room

    def _inverse(self, y: Any) -> Any:
        unused = 1 - (y * y).cumsum(-1)
        unused_before = _t.nn.functional.pad(unused[..., :-1], [1, 0], value=1.0)
        partial = _strict_lower_to_vector(y) / _strict_lower_to_vector(unused_before).sqrt()
        return _t.atanh(partial)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        # stick breaking: dy_ij/dr_ij = sqrt(1 - sum_{k<j} y_ik^2), over the strict lower entries with j >= 1
        """The log-Jacobian of the ``tanh`` squashing plus that of the row-wise stick breaking."""
        unused = 1 - (y * y).cumsum(-1)
        breaking = 0.5 * _strict_lower_to_vector(unused, -2).log().sum(-1)
        # tanh: log(1 - tanh(x)^2)
        squash = 2.0 * (math.log(2.0) - x - _t.nn.functional.softplus(-2.0 * x)).sum(-1)
        return breaking + squash

    @staticmethod
    def _side(count: int) -> int:
        side = round((0.25 + 2 * count) ** 0.5 + 0.5)
        if side * (side - 1) // 2 != count:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return side

    def forward_shape(self, shape: Any) -> Any:
        """The shape of the output for an input of the given shape."""
        _check_vector_shape(shape)
        side = self._side(shape[-1])
        return _like_shape(shape, tuple(shape[:-1]) + (side, side))

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of the input for an output of the given shape."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        side = shape[-1]
        return _like_shape(shape, tuple(shape[:-2]) + (side * (side - 1) // 2,))


class CatTransform(Transform):
    """Each transform of ``tseq`` applied to its slice (of ``lengths``) along ``dim``, results concatenated."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, lengths: Sequence[int] | None = None,
                 cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform expects a sequence of Transform objects")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        """The largest event dim of the parts."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total size along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check_input(self, x: Any) -> None:
        if not -x.dim() <= self.dim < x.dim():
            raise ValueError(f"dim {self.dim} is out of range for an input with {x.dim()} dims")
        if x.size(self.dim) != self.length:
            raise ValueError(f"expected size {self.length} along dim {self.dim}, got {x.size(self.dim)}")

    def _pieces(self, x: Any) -> list[Any]:
        out, start = [], 0
        for length in self.lengths:
            out.append(x.narrow(self.dim, start, length))
            start += length
        return out

    def _call(self, x: Any) -> Any:
        self._check_input(x)
        return _t.cat([t(p) for t, p in zip(self.transforms, self._pieces(x))], dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        self._check_input(y)
        return _t.cat([t.inv(p) for t, p in zip(self.transforms, self._pieces(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The parts' log-Jacobians, concatenated along a batch dim or added within an event."""
        self._check_input(x)
        self._check_input(y)
        event_dim = self.event_dim
        terms = []
        for t, a, b in zip(self.transforms, self._pieces(x), self._pieces(y)):
            term = t.log_abs_det_jacobian(a, b)
            if t.event_dim < event_dim:
                term = _sum_event(term, event_dim - t.event_dim)
            terms.append(term)
        dim = self.dim if self.dim >= 0 else self.dim + x.dim()
        if dim < x.dim() - event_dim:
            return _t.cat(terms, dim=dim)  # the pieces are separate batch entries
        total = terms[0]
        for term in terms[1:]:
            total = total + term  # the pieces belong to one event
        return total

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is a bijection."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        """The constraint the inputs live in."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        """The constraint the outputs live in."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Each transform of ``tseq`` applied to its index along ``dim``, results stacked."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform expects a sequence of Transform objects")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z: Any) -> list[Any]:
        if not -z.dim() <= self.dim < z.dim():
            raise ValueError(f"dim {self.dim} is out of range for an input with {z.dim()} dims")
        if z.size(self.dim) != len(self.transforms):
            raise ValueError(f"expected {len(self.transforms)} entries along dim {self.dim}, got {z.size(self.dim)}")
        return list(z.unbind(self.dim))

    def _call(self, x: Any) -> Any:
        return _t.stack([t(p) for t, p in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        return _t.stack([t.inv(p) for t, p in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The parts' log-Jacobians, stacked along ``dim``."""
        terms = [t.log_abs_det_jacobian(a, b)
                 for t, a, b in zip(self.transforms, self._slices(x), self._slices(y))]
        return _t.stack(terms, dim=self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is a bijection."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> constraints.Constraint:
        """The constraint the inputs live in."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> constraints.Constraint:
        """The constraint the outputs live in."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: from the distribution's support onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        """The distribution's support."""
        return self.distribution.support

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself if it already has it)."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        # the derivative of a cdf is the density
        """The distribution's log-density (the derivative of its cdf)."""
        return self.distribution.log_prob(x)
