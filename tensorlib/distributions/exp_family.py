"""``ExponentialFamily``: distributions with density ``h(x) exp(<t(x), theta> - F(theta))``."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from .distribution import Distribution


class ExponentialFamily(Distribution):
    """A distribution of an exponential family, described by its natural parameters ``theta``.

    Subclasses give ``_natural_params`` (a tuple of tensors), ``_log_normalizer(*theta)``
    (``F``) and ``_mean_carrier_measure`` (``E[log h(x)]``). From these the
    entropy follows as the Bregman divergence of ``F``, computed with autograd,
    so a subclass gets a correct ``entropy`` without writing one.
    """

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> Any:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        """``F(theta) - <theta, grad F(theta)> - E[log h(x)]``, batched."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with _t.enable_grad():
            lg_normal = self._log_normalizer(*params)
            gradients = _t.autograd.grad(lg_normal.sum(), params, create_graph=True)
        result = result + lg_normal
        for p, g in zip(params, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
