"""The multivariate normal distribution, described by a covariance, a precision or a Cholesky factor."""

from __future__ import annotations

import math
from typing import Any

import tensorlib as _t

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

_LOG_2PI = math.log(2 * math.pi)


def _mahalanobis_sq(tril: Any, diff: Any) -> Any:
    """``|tril^{-1} diff|^2`` over the last dim, with the batch dims of both broadcast together."""
    size = diff.shape[-1]
    batch = _t.broadcast_shapes(tuple(tril.shape[:-2]), tuple(diff.shape[:-1]))
    tril = tril.expand(tuple(batch) + (size, size))
    diff = diff.expand(tuple(batch) + (size,))
    whitened = _t.linalg.solve_triangular(tril, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return whitened.pow(2).sum(-1)


def _tril_from_precision(precision: Any) -> Any:
    """A lower-triangular ``L`` with ``L L^T = precision^{-1}``, without inverting ``precision`` directly.

    Reversing the order of the coordinates turns the Cholesky factor of the
    reversed precision into an upper factor ``U`` with ``precision = U U^T``;
    then ``U^{-T}`` is lower triangular and squares to the covariance.
    """
    lower_of_reversed = _t.linalg.cholesky(precision.flip((-2, -1)))
    upper = lower_of_reversed.flip((-2, -1))
    eye = _t.eye(precision.shape[-1], dtype=precision.dtype).expand(upper.shape)
    return _t.linalg.solve_triangular(upper, eye, upper=True).mT


def _half_log_det(tril: Any) -> Any:
    """``0.5 * log det(L L^T)`` for a lower-triangular ``L`` with positive diagonal."""
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """Gaussian vectors with mean ``loc`` and one of ``covariance_matrix``, ``precision_matrix``, ``scale_tril``."""

    arg_constraints = {  # noqa: RUF012
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if sum(m is not None for m in (covariance_matrix, precision_matrix, scale_tril)) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix, name = scale_tril, "scale_tril"
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix, name = covariance_matrix, "covariance_matrix"
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            matrix, name = precision_matrix, "precision_matrix"
        batch_shape = _t.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # the Cholesky factor of the covariance, kept with its own (unexpanded) batch shape
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = scale_tril
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = _t.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _tril_from_precision(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        """This distribution with its parameters expanded to ``batch_shape``."""
        shape = _t.Size(batch_shape)
        new = self._get_checked_instance(MultivariateNormal, _instance)
        matrix_shape = tuple(shape) + tuple(self.event_shape) * 2
        new.loc = self.loc.expand(tuple(shape) + tuple(self.event_shape))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(matrix_shape)
        super(MultivariateNormal, new).__init__(shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor ``L`` of the covariance (``L L^T = covariance_matrix``)."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """The covariance ``L L^T``."""
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse covariance ``L^{-T} L^{-1}``."""
        tril = self._unbroadcasted_scale_tril
        eye = _t.eye(tril.shape[-1], dtype=tril.dtype).expand(tril.shape)
        inv_tril = _t.linalg.solve_triangular(tril, eye, upper=False)
        return (inv_tril.mT @ inv_tril).expand(self._matrix_shape())

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
        """The diagonal of the covariance."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """``loc + L eps`` with ``eps`` standard normal: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        eps = _t.randn(shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> Any:
        """``-(k log(2 pi) + |L^{-1}(x - loc)|^2) / 2 - log det L``."""
        if self._validate_args:
            self._validate_sample(value)
        tril = self._unbroadcasted_scale_tril
        maha = _mahalanobis_sq(tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + maha) - _half_log_det(tril)

    def entropy(self) -> Any:
        """``k (1 + log(2 pi)) / 2 + log det L``."""
        size = self._event_shape[0]
        result = 0.5 * size * (1.0 + _LOG_2PI) + _half_log_det(self._unbroadcasted_scale_tril)
        return result.expand(self._batch_shape)
