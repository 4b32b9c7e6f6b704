"""The Wishart distribution over positive definite matrices."""

from __future__ import annotations

import math
import warnings
from typing import Any

import tensorlib as _t

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .utils import lazy_property


def _eye_like(matrix: Any) -> Any:
    return _t.eye(matrix.shape[-1], dtype=matrix.dtype)


def _tril_inverse(tril: Any) -> Any:
    """``L^{-1}`` of a batch of lower triangular ``L`` (by triangular solves)."""
    return _t.linalg.solve_triangular(tril, _eye_like(tril).expand(tril.shape), upper=False)


def _multi_digamma(a: Any, p: int) -> Any:
    """The multivariate digamma ``sum_{i<p} digamma(a - i/2)``."""
    return sum(_t.digamma(a - 0.5 * i) for i in range(p))


class Wishart(ExponentialFamily):
    """Wishart distribution with ``df`` degrees of freedom and scale matrix ``Sigma``.

    Give exactly one of ``covariance_matrix`` (``Sigma``), ``precision_matrix``
    (``Sigma^{-1}``) or ``scale_tril`` (the Cholesky factor of ``Sigma``). A draw is
    ``sum_k x_k x_k^T`` for ``df`` independent ``N(0, Sigma)`` vectors (for integral
    ``df``); ``rsample`` uses the Bartlett decomposition, whose chi-squared diagonal
    carries implicit gradients in ``df``.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df: Any, covariance_matrix: Any = None, precision_matrix: Any = None, scale_tril: Any = None,
                 validate_args: bool | None = None) -> None:
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if not isinstance(df, _t.Tensor):
            df = _t.tensor(df, dtype=matrix.dtype)
        event_shape = matrix.shape[-2:]
        batch_shape = _t.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape))
        self._dim = event_shape[-1]
        self.df = df.expand(batch_shape)
        setattr(self, name, matrix.expand(tuple(batch_shape) + tuple(event_shape)))
        if bool((self.df <= self._dim - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {self._dim - 1}.")
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # the Cholesky factor of Sigma, not broadcast to the batch
        if name == "scale_tril":
            self._tril = matrix
        elif name == "covariance_matrix":
            self._tril = _t.linalg.cholesky(matrix)
        else:
            self._tril = _t.linalg.cholesky(_t.linalg.inv(matrix))
        if bool((self.df < self._dim).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                          UserWarning, stacklevel=2)
        # the squared diagonal of the Bartlett factor: chi-squared with df, df - 1, ..., df - p + 1 degrees of freedom
        offsets = _t.arange(self._dim, dtype=self.df.dtype)
        self._bartlett_chi2 = Chi2(self.df.unsqueeze(-1) - offsets, validate_args=False)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """The matrix constraints, and ``df > p - 1``."""
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self._dim - 1)}

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        """This distribution with ``df`` and the scale expanded to ``batch_shape``."""
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _t.Size(batch_shape)
        matrix_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._dim = self._dim
        new.df = self.df.expand(batch_shape)
        new._tril = self._tril.expand(matrix_shape)
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        new._bartlett_chi2 = self._bartlett_chi2.expand(tuple(batch_shape) + (self._dim,))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor of the scale matrix."""
        return self._tril.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The scale matrix ``Sigma``."""
        sigma = self._tril @ self._tril.mT
        return sigma.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self) -> Any:
        """``Sigma^{-1}``."""
        inv = _tril_inverse(self._tril)
        return (inv.mT @ inv).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def mean(self) -> Any:
        """``df * Sigma``."""
        return self.df.unsqueeze(-1).unsqueeze(-1) * self.covariance_matrix

    @property
    def mode(self) -> Any:
        """``(df - p - 1) Sigma`` when ``df > p + 1``, else NaN."""
        factor = (self.df - self._dim - 1).unsqueeze(-1).unsqueeze(-1)
        result = factor * self.covariance_matrix
        return _t.where(factor > 0, result, _t.full_like(result, float("nan")))

    @property
    def variance(self) -> Any:
        """``Var(X_ij) = df (Sigma_ij^2 + Sigma_ii Sigma_jj)``."""
        sigma = self.covariance_matrix
        diag = sigma.diagonal(dim1=-2, dim2=-1)
        return self.df.unsqueeze(-1).unsqueeze(-1) * (sigma.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _draw(self, sample_shape: Any) -> Any:
        """One Bartlett draw ``L A A^T L^T``: ``A`` lower triangular, ``A_ii^2 ~ Chi2(df - i)``, ``A_ij ~ N(0, 1)``."""
        shape = self._extended_shape(sample_shape)
        chi2 = self._bartlett_chi2.rsample(sample_shape)
        noise = _t.randn(shape, dtype=self.df.dtype).tril(-1)
        factor = noise + _t.diag_embed(chi2.sqrt())
        lower = self._tril @ factor
        return lower @ lower.mT

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None) -> Any:
        """A draw by the Bartlett decomposition; singular draws are redrawn up to ``max_try_correction`` times."""
        sample = self._draw(sample_shape)
        tries = 3 if max_try_correction is None else max_try_correction
        singular = ~constraints.positive_definite.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", UserWarning, stacklevel=2)
            for _ in range(tries):
                fresh = self._draw(sample_shape)
                sample = _t.where(singular.unsqueeze(-1).unsqueeze(-1), fresh, sample)
                singular = ~constraints.positive_definite.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value: Any) -> Any:
        """``(n-p-1)/2 log|X| - tr(Sigma^{-1} X)/2 - np/2 log 2 - n/2 log|Sigma| - log Gamma_p(n/2)``."""
        if self._validate_args:
            self._validate_sample(value)
        n, p = self.df, self._dim
        inv = _tril_inverse(self._tril)
        trace = (inv @ value @ inv.mT).diagonal(dim1=-2, dim2=-1).sum(-1)
        log_det_x = _t.linalg.slogdet(value)[1]
        return (0.5 * (n - p - 1) * log_det_x - 0.5 * trace - 0.5 * n * p * math.log(2)
                - n * self._half_log_det_sigma() - _t.mvlgamma(0.5 * n, p=p))

    def _half_log_det_sigma(self) -> Any:
        """``log|Sigma| / 2 = sum(log diag(L))``."""
        return self._tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def entropy(self) -> Any:
        """``(p+1)/2 log|Sigma| + p(p+1)/2 log 2 + log Gamma_p(n/2) - (n-p-1)/2 psi_p(n/2) + np/2``."""
        n, p = self.df, self._dim
        return ((p + 1) * self._half_log_det_sigma() + 0.5 * p * (p + 1) * math.log(2) + _t.mvlgamma(0.5 * n, p=p)
                - 0.5 * (n - p - 1) * _multi_digamma(0.5 * n, p) + 0.5 * n * p)

    @property
    def _natural_params(self) -> tuple[Any, ...]:
        return (-0.5 * self.precision_matrix, 0.5 * (self.df - self._dim - 1))

    def _log_normalizer(self, *natural_params: Any) -> Any:
        eta_matrix, eta_scalar = natural_params
        p = self._dim
        half_df = eta_scalar + 0.5 * (p + 1)
        return -half_df * _t.linalg.slogdet(-eta_matrix)[1] + _t.mvlgamma(half_df, p=p)
