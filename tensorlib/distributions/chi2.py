"""The chi-squared distribution (a gamma distribution with rate 1/2)."""

from __future__ import annotations

from typing import Any

import tensorlib as _t

from . import constraints
from .gamma import Gamma
from .utils import broadcast_all


class Chi2(Gamma):
    """Chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, _t.full_like(df, 0.5), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        """This distribution with ``df`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Any:
        """The degrees of freedom, ``2 * concentration``."""
        return self.concentration * 2
