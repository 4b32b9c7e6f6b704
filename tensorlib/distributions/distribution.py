"""``Distribution``: shapes, sampling, validation and the printed form shared by all distributions."""

from __future__ import annotations

import warnings
from typing import Any

import tensorlib as _t

from . import constraints
from .utils import lazy_property


class Distribution:
    """A family of probability distributions with parameters batched over ``batch_shape``.

    A sample has shape ``sample_shape + batch_shape + event_shape``. Arguments
    are checked against ``arg_constraints`` (and values against ``support``)
    unless ``validate_args=False`` (or :meth:`set_default_validate_args`).
    """

    has_rsample = False
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: constraints.Constraint | None = None
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions created afterwards without ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: bool | None = None) -> None:
        self._batch_shape = _t.Size(batch_shape)
        self._event_shape = _t.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self._constraints().items():
                if constraints.is_dependent(constraint):
                    continue  # checked by the distribution itself, if at all
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # a lazily derived parameter (probs from logits, or the reverse)
                if param not in self.__dict__ and not hasattr(type(self), param):
                    continue
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n"
                        f"{value}"
                    )

    def _constraints(self) -> dict[str, constraints.Constraint]:
        return self.arg_constraints

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A distribution of the same family with parameters expanded (not copied) to ``batch_shape``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement expand")

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """A bare instance to fill in ``expand``: ``_instance`` if given, else a new one of ``cls``.

        A subclass that defines its own ``__init__`` must also define ``expand``.
        """
        if _instance is None and getattr(type(self), "__init__") is not getattr(cls, "__init__"):
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom __init__ method must also "
                "define a custom .expand() method.")
        return object.__new__(type(self)) if _instance is None else _instance

    has_enumerate_support = False

    @property
    def mode(self) -> Any:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    def enumerate_support(self, expand: bool = True) -> Any:
        """All values of a discrete support, along a new leading dim."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Any:
        """``n`` samples (deprecated in torch: use ``sample((n,))``)."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample(_t.Size((n,)))

    @property
    def batch_shape(self) -> _t.Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> _t.Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def mean(self) -> Any:
        raise NotImplementedError(f"{type(self)} does not implement mean")

    @property
    def variance(self) -> Any:
        raise NotImplementedError(f"{type(self)} does not implement variance")

    @property
    def stddev(self) -> Any:
        """The standard deviation, ``sqrt(variance)``."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Any:
        """A sample (no gradient flows through it) of shape ``sample_shape + batch_shape + event_shape``."""
        with _t.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A reparameterised sample: gradients flow to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} does not support rsample (it is not reparameterizable)")

    def log_prob(self, value: Any) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        raise NotImplementedError

    def cdf(self, value: Any) -> Any:
        raise NotImplementedError

    def icdf(self, value: Any) -> Any:
        raise NotImplementedError

    def perplexity(self) -> Any:
        """``exp(entropy())``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = ()) -> _t.Size:
        if not isinstance(sample_shape, (tuple, list)):
            raise TypeError(f"sample_shape must be a tuple or Size, not {type(sample_shape).__name__}")
        return _t.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, _t.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim = len(self._event_shape)
        if tuple(value.shape[len(value.shape) - event_dim:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                f"{tuple(self._event_shape)}."
            )
        support = self.support
        if support is not None and not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        params = [k for k in self.arg_constraints if k in self.__dict__]
        shown = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}" for p in params
        )
        return f"{type(self).__name__}({shown})"
