"""``OneHotCategorical`` with a straight-through gradient estimator for its samples."""

from __future__ import annotations

from typing import Any

from .one_hot_categorical import OneHotCategorical


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` whose ``rsample`` passes gradients to ``probs`` as if the sample were ``probs``."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A one-hot sample whose gradient w.r.t. the parameters is that of ``probs`` (straight-through)."""
        hard = self.sample(sample_shape)
        probs = self._categorical.probs  # differentiable in the parameters
        return hard + (probs - probs.detach())
