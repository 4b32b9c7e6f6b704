"""The LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all


class LKJCholesky(Distribution):
    """LKJ distribution of the lower Cholesky factor ``L`` of a ``dim x dim`` correlation matrix ``L L^T``.

    The correlation matrix has density proportional to ``det(C) ** (concentration - 1)``;
    as a density of ``L`` that is ``prod_{i>=1} L_ii ** (dim - i - 1 + 2 (concentration - 1))``
    (0-based ``i``). Sampling uses the onion method: row ``i`` of ``L`` is
    ``(sqrt(y_i) u_i, sqrt(1 - y_i))`` with ``u_i`` uniform on the unit sphere of
    dimension ``i`` and ``y_i ~ Beta(i / 2, concentration + (dim - 1 - i) / 2)``.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.shape
        event_shape = _t.Size((dim, dim))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # the squared norms y_1 .. y_{dim-1} of the off-diagonal parts of rows 1 .. dim-1
        rows = _t.arange(1, dim, dtype=self.concentration.dtype)
        self._row_beta = Beta(0.5 * rows, self.concentration.unsqueeze(-1) + 0.5 * (dim - 1 - rows),
                              validate_args=False)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        """This distribution with ``concentration`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _t.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._row_beta = self._row_beta.expand(tuple(batch_shape) + (self.dim - 1,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Any:
        """A draw by the onion method (not reparameterised)."""
        shape = self._extended_shape(sample_shape)
        dtype = self.concentration.dtype
        with _t.no_grad():
            y = self._row_beta.sample(sample_shape)
            y = _t.cat([_t.zeros(y.shape[:-1] + (1,), dtype=dtype), y], -1)  # row 0 is (1, 0, ..., 0)
            directions = _t.randn(shape, dtype=dtype).tril(-1)
            norms = directions.norm(dim=-1, keepdim=True)
            norms = _t.where(norms > 0, norms, _t.ones_like(norms))
            off_diagonal = directions / norms * y.sqrt().unsqueeze(-1)
            diagonal = (1 - y).clamp(min=_t.finfo(dtype).tiny).sqrt()
            return off_diagonal + _t.diag_embed(diagonal)

    def log_prob(self, value: Any) -> Any:
        """``sum_i (dim - i - 1 + 2 (c - 1)) log L_ii`` minus the log of the LKJ normalising constant."""
        if self._validate_args:
            self._validate_sample(value)
        d = self.dim
        c = self.concentration
        log_diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:].log()
        exponents = (d - 2 - _t.arange(d - 1, dtype=c.dtype)) + 2 * (c.unsqueeze(-1) - 1)
        unnormalised = (exponents * log_diag).sum(-1)
        return unnormalised - self._log_normaliser()

    def _log_normaliser(self) -> Any:
        """``log c_d(eta) = sum_{k=1}^{d-1} [(2 eta - 2 + d - k)(d - k) log 2 + (d - k) log B(b_k, b_k)]``,
        ``b_k = eta + (d - k - 1) / 2`` (Lewandowski, Kurowicka and Joe, 2009)."""
        d, eta = self.dim, self.concentration
        total = _t.zeros_like(eta)
        for k in range(1, d):
            b = eta + 0.5 * (d - k - 1)
            log_beta = 2 * _t.lgamma(b) - _t.lgamma(2 * b)
            total = total + (2 * eta - 2 + d - k) * (d - k) * math.log(2) + (d - k) * log_beta
        return total
