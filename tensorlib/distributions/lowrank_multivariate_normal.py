"""The multivariate normal with a low-rank-plus-diagonal covariance ``W W^T + diag(D)``."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

_LOG_2PI = math.log(2 * math.pi)


def _capacitance_tril(factor: Any, diag: Any) -> Any:
    """Cholesky factor of the ``r x r`` capacitance ``I + W^T D^{-1} W``."""
    rank = factor.shape[-1]
    scaled = factor / diag.sqrt().unsqueeze(-1)  # D^{-1/2} W
    capacitance = scaled.mT @ scaled + _t.eye(rank, dtype=factor.dtype)
    return _t.linalg.cholesky(capacitance)


def _lowrank_log_det(factor: Any, diag: Any, cap_tril: Any) -> Any:
    """``log det(W W^T + D) = log det(capacitance) + sum(log D)`` (the matrix determinant lemma)."""
    return 2 * cap_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + diag.log().sum(-1)


def _lowrank_mahalanobis_sq(factor: Any, diag: Any, cap_tril: Any, diff: Any) -> Any:
    """``diff^T (W W^T + D)^{-1} diff`` through the Woodbury identity.

    ``(W W^T + D)^{-1} = D^{-1} - D^{-1} W C^{-1} W^T D^{-1}`` with ``C = L_C L_C^T``
    the capacitance, so the quadratic form is ``|D^{-1/2} diff|^2 - |L_C^{-1} W^T D^{-1} diff|^2``.
    """
    rank = factor.shape[-1]
    size = diff.shape[-1]
    batch = _t.broadcast_shapes(tuple(factor.shape[:-2]), tuple(diag.shape[:-1]), tuple(cap_tril.shape[:-2]),
                                tuple(diff.shape[:-1]))
    diff = diff.expand(tuple(batch) + (size,))
    factor = factor.expand(tuple(batch) + (size, rank))
    cap_tril = cap_tril.expand(tuple(batch) + (rank, rank))
    diag_part = (diff.pow(2) / diag).sum(-1)
    projected = (factor.mT @ (diff / diag).unsqueeze(-1))  # W^T D^{-1} diff, as a column
    solved = _t.linalg.solve_triangular(cap_tril, projected, upper=False).squeeze(-1)
    return diag_part - solved.pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """Gaussian vectors with mean ``loc`` and covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``."""

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, cov_factor: Any, cov_diag: Any, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_col = loc.unsqueeze(-1)
        diag_col = cov_diag.unsqueeze(-1)
        try:
            loc_col, self.cov_factor, diag_col = _t.broadcast_tensors(loc_col, cov_factor, diag_col)
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_col[..., 0]
        self.cov_diag = diag_col[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        vector_shape = tuple(shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(vector_shape)
        new.cov_diag = self.cov_diag.expand(vector_shape)
        new.cov_factor = self.cov_factor.expand(vector_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self) -> Any:
        """The mean vector ``loc``."""
        return self.loc

    @property
    def mode(self) -> Any:
        """The mode, equal to ``loc``."""
        return self.loc

    @property
    def variance(self) -> Any:
        """The diagonal of the covariance: row sums of ``W**2`` plus ``D``."""
        var = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return var.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The dense covariance ``W W^T + diag(D)``."""
        factor = self._unbroadcasted_cov_factor
        dense = factor @ factor.mT + _t.diag_embed(self._unbroadcasted_cov_diag)
        return dense.expand(self._matrix_shape())

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor of the dense covariance."""
        factor = self._unbroadcasted_cov_factor
        dense = factor @ factor.mT + _t.diag_embed(self._unbroadcasted_cov_diag)
        return _t.linalg.cholesky(dense).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse covariance by the Woodbury identity: ``D^{-1} - A^T A`` with ``A = L_C^{-1} W^T D^{-1}``."""
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        rhs = (factor / diag.unsqueeze(-1)).mT  # W^T D^{-1}
        cap = self._capacitance_tril.expand(tuple(rhs.shape[:-2]) + tuple(self._capacitance_tril.shape[-2:]))
        a = _t.linalg.solve_triangular(cap, rhs, upper=False)
        return (_t.diag_embed(diag.reciprocal()) - a.mT @ a).expand(self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``loc + W eps_r + sqrt(D) eps_k`` with standard normal noise: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        rank = self._unbroadcasted_cov_factor.shape[-1]
        eps_low = _t.randn(tuple(shape[:-1]) + (rank,), dtype=self.loc.dtype)
        eps_diag = _t.randn(shape, dtype=self.loc.dtype)
        low = (self._unbroadcasted_cov_factor @ eps_low.unsqueeze(-1)).squeeze(-1)
        return self.loc + low + self._unbroadcasted_cov_diag.sqrt() * eps_diag

    def log_prob(self, value: Any) -> Any:
        """The Gaussian log-density, with the Woodbury identity and the matrix determinant lemma."""
        if self._validate_args:
            self._validate_sample(value)
        factor, diag, cap = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        maha = _lowrank_mahalanobis_sq(factor, diag, cap, value - self.loc)
        log_det = _lowrank_log_det(factor, diag, cap)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + log_det + maha)

    def entropy(self) -> Any:
        """``(k (1 + log(2 pi)) + log det(covariance)) / 2``."""
        log_det = _lowrank_log_det(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                   self._capacitance_tril)
        result = 0.5 * (self._event_shape[0] * (1.0 + _LOG_2PI) + log_det)
        return result.expand(self._batch_shape)
