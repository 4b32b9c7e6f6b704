"""Conversions between probabilities and logits; broadcasting of parameters."""

from __future__ import annotations

import numbers
from typing import Any

import tensorlib as _t
from tensorlib.overrides import is_tensor_like


class lazy_property:
    """A property computed on first access and then stored on the instance (as a plain attribute).

    Used for parameters derived from one another (``probs`` and ``logits``):
    whichever was not given is computed when first read.
    """

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


def set_count_and_probs(dist: Any, total_count: Any, probs: Any, logits: Any) -> Any:
    """Set ``dist.total_count`` and whichever of ``probs``/``logits`` is given (exactly one), broadcast together.

    The count takes the parameter's dtype. Returns the parameter that was given.
    """
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, value = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, value)
    dist.total_count = count.type_as(param)
    setattr(dist, name, param)
    return param


def copy_expanded(src: Any, dst: Any, names: tuple[str, ...], shape: Any) -> None:
    """Give ``dst`` each of the tensors ``names`` that ``src`` holds, expanded (not copied) to ``shape``."""
    for name in names:
        if name in src.__dict__:
            dst.__dict__[name] = src.__dict__[name].expand(shape)


def clamp_probs(probs: Any) -> Any:
    """``probs`` kept one machine epsilon away from 0 and 1 (so their logits are finite)."""
    eps = _t.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    """Probabilities from logits: ``sigmoid`` for one binary event, ``softmax`` over the last dim otherwise."""
    return _t.sigmoid(logits) if is_binary else _t.softmax(logits, dim=-1)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    """Logits from probabilities (clamped away from 0 and 1): ``log(p) - log1p(-p)``, or ``log(p)``."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def broadcast_all(*values: Any) -> Any:
    """The arguments as tensors of one broadcast shape.

    Numbers become tensors of the first Tensor argument's dtype (the default
    float dtype if there is none). Objects implementing ``__torch_function__``
    are accepted as tensors: ``broadcast_tensors`` dispatches to them.
    """
    for v in values:
        if not (is_tensor_like(v) or isinstance(v, numbers.Number)):
            raise ValueError(
                "Input arguments must all be instances of numbers.Number, tensorlib.Tensor or objects "
                f"implementing __torch_function__, not {type(v).__name__}."
            )
    if all(is_tensor_like(v) for v in values):
        return _t.broadcast_tensors(*values)
    dtype = next((v.dtype for v in values if isinstance(v, _t.Tensor)), _t.get_default_dtype())
    converted = [v if is_tensor_like(v) else _t.tensor(v, dtype=dtype) for v in values]
    return _t.broadcast_tensors(*converted)


class BinaryParameters:
    """``probs`` and ``logits`` of one binary trial, each computed from the other on first use.

    Mixed into the families parameterised by a success probability (Binomial,
    NegativeBinomial, Geometric): their ``__init__`` stores whichever was given.
    """

    @lazy_property
    def probs(self) -> Any:
        """The success probability of one trial."""
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self) -> Any:
        """The log-odds of success of one trial."""
        return probs_to_logits(self.probs, is_binary=True)
