"""Named tuples returned by ops with several outputs (``max(dim=...)``, ``sort``, ``topk``, ...)."""

from __future__ import annotations

from typing import Any, NamedTuple


class _ReturnRepr:
    """torch's layout: one field per line after the qualified name."""

    __slots__ = ()

    def __repr__(self: Any) -> str:
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"tensorlib.return_types.{type(self).__name__}(\n{fields})"


def _make(name: str, fields: tuple[str, ...]) -> type:
    base = NamedTuple(name, [(f, Any) for f in fields])  # type: ignore[misc]
    cls = type(name, (_ReturnRepr, base), {"__slots__": (), "__module__": __name__})
    cls.__doc__ = f"Result of ``{name}``: a named tuple ({', '.join(fields)})."
    return cls


max = _make("max", ("values", "indices"))  # noqa: A001
min = _make("min", ("values", "indices"))  # noqa: A001
median = _make("median", ("values", "indices"))
nanmedian = _make("nanmedian", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
aminmax = _make("aminmax", ("min", "max"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
frexp = _make("frexp", ("mantissa", "exponent"))
histogram = _make("histogram", ("hist", "bin_edges"))
histogramdd = _make("histogramdd", ("hist", "bin_edges"))

# linear algebra (tensorlib.linalg and the older top-level names)
linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
linalg_eig = _make("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_inv_ex = _make("linalg_inv_ex", ("inverse", "info"))
linalg_ldl_factor = _make("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu = _make("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
linalg_solve_ex = _make("linalg_solve_ex", ("result", "info"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
geqrf = _make("geqrf", ("a", "tau"))
lu_unpack = _make("lu_unpack", ("P", "L", "U"))
_lu_with_info = _make("_lu_with_info", ("LU", "pivots", "info"))
qr = _make("qr", ("Q", "R"))
slogdet = _make("slogdet", ("sign", "logabsdet"))
svd = _make("svd", ("U", "S", "V"))
triangular_solve = _make("triangular_solve", ("solution", "cloned_coefficient"))

__all__ = ["aminmax", "cummax", "cummin", "frexp", "histogram", "histogramdd", "kthvalue", "max", "median", "min", "mode",
           "nanmedian", "sort", "topk"]
__all__ += [
    "geqrf",
    "linalg_cholesky_ex",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_ldl_factor",
    "linalg_ldl_factor_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "qr",
    "slogdet",
    "svd",
    "triangular_solve",
]
