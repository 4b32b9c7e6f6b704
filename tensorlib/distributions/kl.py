"""KL divergences between distributions, looked up by the pair of types."""

from __future__ import annotations

from typing import Any, Callable

import tensorlib as _t

from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal
from .uniform import Uniform

_KL: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator registering ``fn(p, q)`` as ``KL(p || q)`` for instances of ``type_p`` and ``type_q``."""
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable) -> Callable:
        _KL[(type_p, type_q)] = fn
        return fn

    return decorator


def kl_divergence(p: Distribution, q: Distribution) -> Any:
    """``KL(p || q)``, batched; the most specific registered pair of types is used."""
    best, best_rank = None, None
    for (tp, tq), fn in _KL.items():
        if isinstance(p, tp) and isinstance(q, tq):
            rank = (type(p).__mro__.index(tp), type(q).__mro__.index(tq))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    if best is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return best(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Any:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Any:
    f = _t.nn.functional.softplus
    t1 = p.probs * (f(-q.logits) - f(-p.logits))
    t2 = (1 - p.probs) * (f(q.logits) - f(p.logits))
    # where p is certain, the other term is 0 * inf: it contributes nothing
    t1 = _t.where(p.probs == 0, _t.zeros_like(t1), t1)
    t2 = _t.where(p.probs == 1, _t.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Any:
    t = p.probs * (p.logits - q.logits)
    t = _t.where(q.probs == 0, _t.full_like(t, float("inf")), t)
    t = _t.where(p.probs == 0, _t.zeros_like(t), t)
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Any:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return _t.where(outside, _t.full_like(result, float("inf")), result)
