"""Named tuples returned by ops with several outputs (``max(dim=...)``, ``sort``, ``topk``, ...)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Iterable


class _ReturnTuple(tuple):
    """A named tuple (``_fields``, ``_asdict``, ``_replace``, ``_make``) printed as torch prints its return types.

    Written once here rather than made by ``collections.namedtuple`` per type: making 37 of those (each from
    generated source) was a twentieth of ``import tensorlib``.
    """

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "_ReturnTuple":
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} positional arguments but {len(args)} were given")
        values = list(args)
        for name in fields[len(args):]:
            if name not in kwargs:
                raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
            values.append(kwargs.pop(name))
        if kwargs:
            name = next(iter(kwargs))
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
        return tuple.__new__(cls, values)

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> "_ReturnTuple":
        """A new instance from a sequence or iterable of the field values."""
        values = tuple(iterable)
        if len(values) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(values)}")
        return tuple.__new__(cls, values)

    def _asdict(self) -> dict[str, Any]:
        """The fields as a dict, in order."""
        return dict(zip(self._fields, self))

    def _replace(self, **changes: Any) -> "_ReturnTuple":
        """A copy with the given fields replaced."""
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
        return tuple.__new__(type(self), [changes.get(n, v) for n, v in zip(self._fields, self)])

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:  # torch's layout: one field per line after the qualified name
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return f"tensorlib.return_types.{type(self).__name__}(\n{fields})"


def _make(name: str, fields: tuple[str, ...]) -> type:
    namespace: dict[str, Any] = {
        "__slots__": (), "__module__": __name__, "_fields": fields, "__match_args__": fields,
        "__doc__": f"Result of ``{name}``: a named tuple ({', '.join(fields)}).",
    }
    for i, field in enumerate(fields):
        namespace[field] = property(itemgetter(i), doc=f"Alias for field number {i}")
    return type(name, (_ReturnTuple,), namespace)


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
