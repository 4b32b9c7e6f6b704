"""The Tensor: a NumPy array plus autograd metadata.

This module holds the data layout, construction helpers used on every op's
hot path, properties and the methods that are not ops. Op methods
(``t.add``, ``t + u``, ...) are attached in :mod:`tensorlib._methods`, and the
public surface is made overridable in :mod:`tensorlib.__init__`.
"""

from __future__ import annotations

import copy
import enum
import sys
import threading
import warnings
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Iterator, overload

import numpy as np

from . import _dtype, _layout, _memory_format as _mf
from ._accelerator import accel
from ._alloc import allocation_error
from ._autograd.grad_mode import STATE as _GRAD
from ._dtype import FROM_NP, dtype as _DType
from ._hooks import hooks
from ._memory_format import memory_format as _MemoryFormat
from ._protocol import protocol
from ._registry import public
from ._size import Size

_new = object.__new__
_new_tuple = tuple.__new__  # Size(shape) is several times slower than this

_LEGACY_NAMES = {
    "bool": "BoolTensor",
    "uint8": "ByteTensor",
    "int8": "CharTensor",
    "int16": "ShortTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "float16": "HalfTensor",
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}


def legacy_type_name(npdt: np.dtype) -> str:
    """``tensorlib.FloatTensor`` and friends, as ``Tensor.type()`` reports them."""
    return "tensorlib." + _LEGACY_NAMES[FROM_NP[npdt].name]


# torch's names of dtypes in some messages: the C++ type, and the scalar type's title
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
_TITLE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}
_SAME_DTYPE: Any = object()  # _TensorMeta.grad_dtype's default: the tensor's own dtype


_META_LOCK = threading.Lock()


class _TensorMeta:
    """Autograd state that most tensors never need, created on first use."""

    __slots__ = ("grad", "output_nr", "hooks", "retains_grad", "grad_acc", "post_acc_hooks", "grad_dtype")

    def __init__(self) -> None:
        self.grad: Tensor | None = None
        self.grad_dtype: Any = _SAME_DTYPE  # the dtype gradients take: the tensor's own unless set (None: any)
        self.output_nr = 0
        self.hooks: dict | None = None
        self.retains_grad = False
        self.grad_acc: Any = None
        self.post_acc_hooks: dict | None = None


if TYPE_CHECKING:
    # the methods the op registry attaches at import, as generated stubs (python -m tensorlib._stubs)
    from ._tensor_methods import TensorMethods as _RegisteredMethods
else:
    _RegisteredMethods = object


class _DLDeviceType(enum.IntEnum):
    """DLPack's device types (those torch names)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLExtDev = 12
    kDLOneAPI = 14


def _empty_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


# Types of arguments that cannot hold a tensor, which _default_result need not look into (and Tensor, added below)
_NOT_SEQUENCES: set = {int, float, bool, complex, type(None)}


def _default_result(func: Any, ret: Any, cls: type, args: tuple, kwargs: dict) -> Any:
    """The default ``__torch_function__``'s last step: ``ret`` as :func:`_convert` returns it, or as it is for
    the functions whose results torch does not wrap (``_NO_WRAP``).

    ``default_result`` in tensorlib/_accel.c is the compiled twin of its first branch: change both together.
    """
    if type(ret) is Tensor and cls is not Tensor:
        # the usual result, a fresh plain tensor, of a call without sequence arguments: change its class
        for a in args:
            if a is ret or (type(a) is not cls and type(a) not in _NOT_SEQUENCES and isinstance(a, (list, tuple))):
                break
        else:
            if not kwargs and func not in _NO_WRAP:
                if ret._requires_grad:  # as torch's as_subclass: an alias, recorded (AliasBackward0)
                    return hooks.alias(ret, cls)
                try:
                    ret.__class__ = cls
                    return ret
                except TypeError:  # the subclass changed the layout (its own __slots__)
                    return hooks.alias(ret, cls)
    return ret if func in _NO_WRAP else _convert(ret, cls, args, kwargs)


@public()
class Tensor(_RegisteredMethods):
    """A multi-dimensional array with automatic differentiation, backed by a NumPy array.

    Construct tensors with :func:`tensorlib.tensor`, :func:`tensorlib.zeros` and
    friends. ``Tensor(2, 3)`` (an uninitialised float tensor of that shape) and
    ``Tensor([1, 2])`` (float data) are the legacy constructor forms.
    """

    # The fields every op reads or writes are slots, set on every tensor by
    # _init/_wrap/_make_view: a slot store is several times cheaper than the
    # instance dict a first attribute store creates. ``_vc`` is the version
    # counter (a one-element list shared by a base and its views, created on
    # demand); ``_view_version`` is a view's counter value when its history was
    # last set. Rarely used state (grad, hooks) lives in ``_meta``, a class
    # default until needed; user attributes go to ``__dict__``.
    # ``_size`` is ``shape`` once read (None until then): every assignment to ``_data`` resets it
    # (tests/structure/test_tensor_slots.py checks that each function assigning one assigns the other).
    __slots__ = ("_data", "_size", "_grad_fn", "_requires_grad", "_vc", "_base", "_view_version",
                 "__dict__", "__weakref__")
    _data: np.ndarray
    _size: Size | None
    _grad_fn: Any
    _requires_grad: bool
    _vc: Any
    _base: "Tensor | None"
    _view_version: "int | None"
    _meta: "_TensorMeta | None" = None

    # Makes NumPy's binary operators defer to ours (``array + tensor`` -> Tensor.__radd__).
    __array_priority__ = 1000

    def __new__(cls, *args: Any, **kwargs: Any) -> "Tensor":
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            return hooks.alias(args[0], cls)  # as torch: Tensor(t) and Subclass(t) are views of t
        try:
            data = _legacy_construct(args, kwargs)
        except (MemoryError, ValueError) as exc:
            alloc = allocation_error(exc)
            if alloc is not None:
                raise alloc from exc
            raise
        t = _new(cls)
        _init(t, data)
        return t

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Construction happens in __new__; subclasses may define their own __init__.
        pass

    # The protocol's default handler (``(cls, func, types, args=(), kwargs=None)``): it runs ``func`` with
    # subclass dispatch off and returns results as ``cls``; the protocol knows it, and takes its steps itself
    # for subclasses that keep it (see dispatch's Protocol.default_handler).
    __torch_function__ = classmethod(protocol.default_handler(
        _default_result if accel is None else accel.default_result,  # (the twin is set up below, with _NO_WRAP)
        qualname="Tensor.__torch_function__", module=__name__,
        doc="Default handler: run ``func`` with subclass dispatch off and return results as ``cls``.",
    ))

    # -- properties (raw getters; made overridable in tensorlib/__init__) ----

    @property
    def shape(self) -> Size:
        """The size of each dimension, as a :class:`tensorlib.Size`."""
        size = self._size
        if size is None:
            size = self._size = _size_of(self._data.shape)
        return size

    @property
    def dtype(self) -> _DType:
        """The element type."""
        return FROM_NP[self._data.dtype]

    @property
    def device(self) -> "device":
        """Always the CPU."""
        return _CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return True

    @property
    def layout(self) -> _layout.layout:
        """How the elements are stored: always ``tensorlib.strided``."""
        return _layout.strided

    @property
    def is_sparse(self) -> bool:
        """False: tensorlib has no sparse layouts."""
        return False

    @property
    def is_sparse_csr(self) -> bool:
        return False

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def is_mkldnn(self) -> bool:
        return False

    @property
    def is_nested(self) -> bool:
        return False

    # tensors on torch's other backends: never here (tensorlib computes on the CPU)
    @property
    def is_ipu(self) -> bool:
        return False

    @property
    def is_maia(self) -> bool:
        return False

    @property
    def is_mps(self) -> bool:
        return False

    @property
    def is_mtia(self) -> bool:
        return False

    @property
    def is_vulkan(self) -> bool:
        return False

    @property
    def is_xla(self) -> bool:
        return False

    @property
    def is_xpu(self) -> bool:
        return False

    @property
    def name(self) -> None:
        """torch's tensor name attribute: always None (read-only)."""
        return None

    @property
    def volatile(self) -> bool:
        """Removed in torch (always False, with a warning); use ``no_grad``."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value: Any) -> None:
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                      stacklevel=2)

    @property
    def grad_dtype(self) -> "_DType | None":
        """The dtype gradients accumulated into ``grad`` take (this tensor's by default; None allows any). Leaves only."""
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        m = self._meta
        value = _SAME_DTYPE if m is None else m.grad_dtype
        return FROM_NP[self._data.dtype] if value is _SAME_DTYPE else value

    @grad_dtype.setter
    def grad_dtype(self, value: "_DType | None") -> None:
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _DType):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        self._get_meta().grad_dtype = value

    @property
    def __cuda_array_interface__(self) -> Any:
        """Only CUDA tensors have one: an AttributeError here (so ``hasattr`` is False), as for torch's CPU tensors."""
        raise AttributeError(
            f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {legacy_type_name(self._data.dtype)} "
            "If CUDA data is required use tensor.cuda() to copy tensor to device memory."
        )

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor."""
        if self._base is not None:
            refresh_view(self)
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        _set_requires_grad(self, value)

    @property
    def grad(self) -> "Tensor | None":
        """The gradient accumulated by backward (leaves and tensors that called ``retain_grad``)."""
        m = self._meta
        if self._grad_fn is not None and (m is None or not m.retains_grad):
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=3,
            )
        return m.grad if m is not None else None

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        _set_grad(self, value)

    @property
    def grad_fn(self) -> Any:
        """The node that produced this tensor (None for leaves)."""
        if self._base is not None:
            refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded operation."""
        if self._base is not None:
            refresh_view(self)
        return self._grad_fn is None

    @property
    def retains_grad(self) -> bool:
        m = self._meta
        return m is not None and m.retains_grad

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _output_nr(self) -> int:
        m = self._meta
        return m.output_nr if m is not None else 0

    @property
    def data(self) -> "Tensor":
        """A tensor sharing this one's memory, detached from autograd, whose changes are not tracked."""
        return _wrap(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data
        self._size = None

    @property
    def _version_value(self) -> int:
        c = self._vc
        return 0 if c is None else c[0]

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's data has seen (shared with its views), as torch's ``_version``."""
        c = self._vc
        return 0 if c is None else c[0]

    @property
    def is_view(self) -> bool:
        return self._base is not None

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (its ``_base``), as torch's private method."""
        return self._base is not None

    @property
    def T(self) -> "Tensor":
        """The dimensions reversed."""
        return hooks.reverse_dims(self)

    @property
    def mT(self) -> "Tensor":
        """The last two dimensions swapped."""
        return hooks.transpose(self, -2, -1)

    @property
    def real(self) -> "Tensor":
        """The real part: a view for complex tensors, the tensor itself for real ones. Assigning writes into it."""
        return hooks.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        hooks.real(self).copy_(value)

    @property
    def imag(self) -> "Tensor":
        """The imaginary part of a complex tensor, as a view. Assigning writes into it."""
        return hooks.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        hooks.imag(self).copy_(value)

    @property
    def H(self) -> "Tensor":
        """The conjugate transpose of a matrix (2-D tensor)."""
        if self._data.ndim not in (0, 2):
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self._data.ndim}-D tensor.")
        return hooks.adjoint(self) if self._data.ndim == 2 else self

    @property
    def mH(self) -> "Tensor":
        """The conjugate transpose of the last two dimensions."""
        if self._data.ndim < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self._data.ndim}-D tensor.")
        return hooks.adjoint(self)

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    # -- plain methods ---------------------------------------------------------

    def size(self, dim: int | None = None) -> "Size | int":
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            size = self._size
            if size is None:
                size = self._size = _size_of(self._data.shape)
            return size
        shape = self._data.shape
        # Unlike an op's dim argument, size() and stride() take any __index__ (a bool too).
        d = dim if type(dim) is int else _index_value(dim, "dim")
        if not shape:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        return shape[wrap_dim(d, len(shape))]

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    def nelement(self) -> int:
        return self._data.size

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim: int | None = None) -> "tuple[int, ...] | int":
        """Element strides of each dimension (or of ``dim``)."""
        data = self._data
        if data.size:
            item = data.itemsize
            strides = tuple(s // item for s in data.strides)
        else:
            # NumPy reports zero strides for an empty array; torch reports the contiguous ones,
            # counting each empty dimension as size 1
            strides = _empty_strides(data.shape)
        if dim is None:
            return strides
        d = dim if type(dim) is int else _index_value(dim, "dim")
        if not strides:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        return strides[wrap_dim(d, len(strides))]

    def storage_offset(self) -> int:
        base = self._base
        if base is None:
            return 0
        return (self._data.__array_interface__["data"][0] - base._data.__array_interface__["data"][0]) // self._data.itemsize

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def is_contiguous(self, *, memory_format: _MemoryFormat = _mf.contiguous_format) -> bool:
        """Whether the reported strides are dense in ``memory_format``'s order (row-major by default)."""
        fmt = _mf.check_memory_format(memory_format, "is_contiguous", allow_none=False)
        if fmt is _mf.channels_last or fmt is _mf.channels_last_3d:
            a = self._data
            item = a.itemsize
            return _mf.is_channels_last(fmt, a.shape, [s // item for s in a.strides])
        return self._data.flags.c_contiguous

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def get_device(self) -> int:
        return -1

    def is_inference(self) -> bool:
        """Whether this is an inference tensor: never here (``inference_mode`` is ``no_grad``; see its notes)."""
        return False

    def is_set_to(self, tensor: "Tensor") -> bool:
        """Whether ``tensor`` is this tensor's exact alias: same memory, offset, sizes and strides."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
        a, b = self._data, tensor._data
        return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
                and a.strides == b.strides and a.dtype == b.dtype)

    def share_memory_(self) -> "Tensor":
        """Move the storage to shared memory: nothing to do for tensorlib's CPU tensors (as torch's CPU no-op)."""
        return self

    def item(self) -> "int | float | bool":
        """The value of a one-element tensor as a Python number (``complex`` for complex tensors).

        Typed as torch types it, so that code written against torch's stubs checks.
        """
        a = self._data
        if a.size != 1:
            raise RuntimeError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
        return a.item() if a.ndim == 0 else a.reshape(()).item()

    def tolist(self) -> Any:
        """The data as (nested) Python lists of Python numbers."""
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind this tensor (shared memory)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data.view()  # a new array object, as torch's: setting its shape leaves the tensor's be

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        a = self._data
        if dtype is not None:
            try:
                target = np.dtype(dtype)
            except (TypeError, ValueError):
                raise TypeError(f"__array__(): dtype must be a NumPy dtype, not {type(dtype).__name__}") from None
            if target != a.dtype:
                return a.astype(target)
        return a.copy() if copy else a.view()

    def detach(self) -> "Tensor":
        """A tensor sharing this one's data (and version counter), cut from the graph."""
        t = _wrap(self._data)
        c = self._vc
        if c is None:
            c = self._vc = [0]
        t._vc = c
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor from the graph in place, making it a leaf."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in tensorlib/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        if self._meta is not None:
            self._meta.output_nr = 0
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set ``requires_grad`` in place and return self."""
        _set_requires_grad(self, requires_grad)
        return self

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        fn = self._grad_fn
        if fn is None:
            return
        meta = self._get_meta()
        if meta.retains_grad:
            return
        meta.retains_grad = True
        fn._hooks_obj().retain[meta.output_nr] = weakref.ref(self)

    def register_hook(self, hook: Any) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return replaces it."""
        add_hook = hooks.add_hook
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        fn = self._grad_fn
        if fn is None:
            meta = self._get_meta()
            if meta.hooks is None:
                meta.hooks = {}
            return add_hook(meta.hooks, hook)
        store = fn._hooks_obj().tensor_pre.setdefault(self._output_nr, {})
        return add_hook(store, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        meta = self._get_meta()
        if meta.post_acc_hooks is None:
            meta.post_acc_hooks = {}
        return hooks.add_hook(meta.post_acc_hooks, hook)

    def backward(
        self,
        gradient: "Tensor | None" = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Accumulate the gradient of this tensor w.r.t. graph leaves into their ``.grad``."""
        if gradient is None and inputs is None:
            hooks.backward_root(self, retain_graph, create_graph)
        else:
            grads = None if gradient is None else (gradient,)
            hooks.backward((self,), grads, retain_graph, create_graph, inputs=inputs)

    def as_subclass(self, cls: type) -> "Tensor":
        """This tensor's data as an instance of ``cls`` (a Tensor subclass), still attached to the graph."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): cls must be a subclass of tensorlib.Tensor, got {cls!r}")
        return hooks.alias(self, cls)

    @overload
    def type(self, dtype: None = None, non_blocking: bool = False, **kwargs: Any) -> str: ...
    @overload
    def type(self, dtype: Any, non_blocking: bool = False, **kwargs: Any) -> "Tensor": ...
    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> "str | Tensor":
        """The legacy type name (``tensorlib.FloatTensor``), or a copy cast to ``dtype``."""
        if dtype is None:
            return legacy_type_name(self._data.dtype)
        if isinstance(dtype, str):
            target = _dtype_from_type_string(dtype)
        elif isinstance(dtype, _DType):
            target = dtype
        elif isinstance(legacy := getattr(dtype, "dtype", None), _DType) and isinstance(dtype, type):  # tensorlib.FloatTensor
            target = legacy
        else:
            raise TypeError(f"type(): invalid type {dtype!r}")
        return hooks.to_dtype(self, target)

    def cpu(self, memory_format: _MemoryFormat = _mf.preserve_format) -> "Tensor":
        """This tensor (it is on the CPU already); the data stays row-major whatever the format."""
        _mf.check_rank(_mf.check_memory_format(memory_format, "cpu"), self._data.ndim)
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> "Tensor":
        """Always raises: tensorlib has no CUDA (``AssertionError``, as torch built without CUDA)."""
        if isinstance(device, int) and not isinstance(device, bool):
            raise _no_accelerator()
        raise cuda_not_available()

    def __len__(self) -> int:
        shape = self._data.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        # Not overridable (as in torch): ``dim`` and ``unbind`` dispatch instead,
        # so iterating over a subclass instance yields subclass instances.
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        a = self._data
        if a.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'more than one value' if a.size else 'no values'} is ambiguous")
        return bool(a.reshape(()).item())

    def __float__(self) -> float:
        value = _scalar_value(self)
        if isinstance(value, complex):
            raise RuntimeError("value cannot be converted to type double without overflow")
        return float(value)

    def __int__(self) -> int:
        value = _scalar_value(self)
        if isinstance(value, complex):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return int(value)

    def __complex__(self) -> complex:
        return complex(_scalar_value(self))

    def __index__(self) -> int:
        a = self._data
        if a.dtype.kind not in "iub" or a.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(a.reshape(()).item())

    def __long__(self) -> int:
        return self.__int__()

    def __nonzero__(self) -> bool:
        return self.__bool__()

    def __dlpack__(self, *, stream: Any = -1, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        """A DLPack capsule of this tensor's memory (NumPy's), for ``from_dlpack`` of another library."""
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        kwargs: dict = {}
        for name, value in (("max_version", max_version), ("dl_device", dl_device)):
            if value is not None:
                if not isinstance(value, tuple) or len(value) != 2 or not all(isinstance(v, int) for v in value):
                    raise TypeError(f"__dlpack__(): argument '{name}' must be None or a tuple of two ints")
                kwargs[name] = value
        if copy is not None:
            if not isinstance(copy, bool):
                raise TypeError(f"__dlpack__(): argument 'copy' must be None or bool, not {type(copy).__name__}")
            kwargs["copy"] = copy
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple:
        """``(kDLCPU, 0)``: the DLPack device of every tensorlib tensor."""
        return (_DLDeviceType.kDLCPU, 0)

    def __array_wrap__(self, array: np.ndarray) -> "Tensor":
        """The result of a NumPy function on this tensor, as a tensor (bools as uint8, as in torch)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"__array_wrap__(): argument 'array' must be numpy.ndarray, not {type(array).__name__}")
        if array.dtype == bool:
            array = array.astype("uint8")
        return _wrap(np.asarray(array))

    def __setstate__(self, state: Any) -> None:
        """Legacy unpickling: ``(storage-like, offset, size, stride)`` or ``(requires_grad, _, hooks)`` forms."""
        if self._grad_fn is not None:
            raise RuntimeError("__setstate__ can be only called on leaf Tensors")
        if not isinstance(state, (tuple, list)) or len(state) not in (3, 4, 5):
            raise TypeError(f"__setstate__(): expected a state tuple of 3, 4 or 5 items, got {type(state).__name__}")
        if len(state) == 4:
            self.set_(*state)
            return
        if len(state) == 5:
            self._data = state[0]._data
            self._size = None
            state = (state[3], state[4], state[2])
        self.requires_grad = state[0]

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        if self.__dict__.get("_is_param", False):  # a subclass instance made a Parameter
            return f"Parameter({hooks.tensor_repr(self)})"
        return hooks.tensor_repr(self)

    def __format__(self, format_spec: str) -> str:
        if not isinstance(format_spec, str):
            raise TypeError(f"__format__() argument must be str, not {type(format_spec).__name__}")
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self._data.item(), format_spec)
        if format_spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol_version: Any) -> Any:
        meta = self._meta
        grad = meta.grad if meta is not None else None
        return (_rebuild, (type(self), self._data.copy(), self._requires_grad, grad, _user_state(self)))

    def __deepcopy__(self, memo: dict) -> "Tensor":
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment. "
                "If you were attempting to deepcopy a module, this may be because of a tensorlib.nn.utils.weight_norm "
                "usage, see https://github.com/pytorch/pytorch/pull/103001"
            )
        if not isinstance(memo, dict):
            raise TypeError(f"__deepcopy__(): argument 'memo' must be a dict, not {type(memo).__name__}")
        if id(self) in memo:
            return memo[id(self)]

        new = _new(type(self))
        _init(new, self._data.copy())
        new._requires_grad = self._requires_grad
        memo[id(self)] = new
        meta = self._meta
        if meta is not None and meta.grad is not None:
            new._get_meta().grad = copy.deepcopy(meta.grad, memo)
        state = _user_state(self)
        if state:
            new.__dict__.update(copy.deepcopy(state, memo))
        return new

    # -- helpers (not public) --------------------------------------------------

    def _get_meta(self) -> _TensorMeta:
        m = self._meta
        if m is None:
            # threads sharing a tensor (a model's leaves) must not each create one and lose the other's state
            with _META_LOCK:
                m = self._meta
                if m is None:
                    m = self._meta = _TensorMeta()
        return m


# torch's device type names: a device of any of these can be described; only 'cpu' holds tensors here
_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
    "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)


def _parse_index(text: str, whole: str) -> int:
    """The index of a device string (``'cuda:1'``): plain decimal digits, no sign or leading zero."""
    if not text or not text.isascii() or not text.isdigit() or (len(text) > 1 and text[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{whole}'")
    value = int(text)
    if value > 0x7FFF_FFFF:
        raise RuntimeError(f"Could not parse device index '{text}' in device string '{whole}'")
    return value


def _no_accelerator() -> RuntimeError:
    return RuntimeError("Cannot access accelerator device when none is available.")


_MISSING: Any = object()


@public()
class device:
    """A device description (``'cpu'``, ``'cuda:1'``, ...); tensors exist on the CPU only."""

    __slots__ = ("_type", "_index")
    _type: str
    _index: int | None

    def __new__(cls, *args: Any, **kwargs: Any) -> "device":
        # torch routes device construction through TorchFunctionMode (modes may rewrite the arguments)
        if protocol.modes_enabled():
            result: device = protocol.handle(device, (), args, kwargs or None)
            return result
        return cls._from(*args, **kwargs)

    @classmethod
    def _from(
        cls, type: Any = _MISSING, index: int | None = None, *, device: Any = _MISSING,  # noqa: A002
    ) -> "device":
        if device is not _MISSING:
            if type is not _MISSING:
                raise TypeError("device(): got both 'type' and 'device'")
            type = device
        if type is _MISSING:
            raise TypeError("device() missing required argument 'type' (pos 1)")
        self = object.__new__(cls)
        self._init(type, index)
        return self

    def _init(self, type: "str | int | device", index: int | None) -> None:  # noqa: A002
        if isinstance(type, _device_cls):
            kind, idx = type._type, type._index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Device index must not be negative") if type < 0 else _no_accelerator()
        elif isinstance(type, str):
            kind, sep, rest = type.partition(":")
            if kind not in _DEVICE_TYPES:
                if not type:
                    raise RuntimeError("Device string must not be empty")
                if kind.strip() in _DEVICE_TYPES and kind.strip() != kind:
                    raise RuntimeError(f"Invalid device string: '{type}'")
                raise RuntimeError(
                    f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {type}"
                )
            idx = _parse_index(rest, type) if sep else None
            if index is not None:
                if isinstance(index, bool) or not isinstance(index, int):
                    raise TypeError(
                        f"device(): argument 'index' (position 2) must be int, not {index.__class__.__name__}"
                    )
                if idx is not None:
                    raise RuntimeError(
                        f"type (string) must not include an index because index was passed explicitly: {type}"
                    )
                if index < 0:
                    raise RuntimeError("Device index must not be negative")
                idx = index
        else:
            raise TypeError(f"device(): argument 'type' must be str, not {type.__class__.__name__}")
        object.__setattr__(self, "_type", kind)
        object.__setattr__(self, "_index", idx)

    @property
    def type(self) -> str:
        """The device type: ``'cpu'``, ``'cuda'``, ..."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, or ``None`` when unspecified."""
        return self._index

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'tensorlib.device' objects is not writable")

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and other._type == self._type and other._index == self._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> tuple:
        return (device, (self._type,) if self._index is None else (self._type, self._index))

    def __enter__(self) -> "device":
        """``with device('cpu'):`` makes it the default device for the block."""
        prev = _DEFAULT.device
        _DEFAULT.stack.append(prev)
        set_default_device(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _DEFAULT.device = _DEFAULT.stack.pop()


_device_cls = device  # the class, under a name device()'s parameters do not shadow
_CPU = device("cpu")


class _DefaultDevice:
    """The device factories use when given none (``set_default_device``)."""

    __slots__ = ("device", "stack")

    def __init__(self) -> None:
        self.device: device = _CPU
        self.stack: list[device] = []


_DEFAULT = _DefaultDevice()


def cuda_not_available() -> AssertionError:
    """The error of every CUDA request: torch raises an AssertionError too when built without CUDA."""
    return AssertionError("tensorlib not compiled with CUDA enabled")


def check_device(value: Any) -> device:
    """``value`` (``None`` for the default device) as a device tensors can live on, which is the CPU.

    CUDA raises ``AssertionError`` as torch built without CUDA does; the other known types raise
    ``NotImplementedError``; malformed devices raise as :class:`device` does.
    """
    d = _DEFAULT.device if value is None else value if isinstance(value, device) else device(value)
    if d._type == "cpu":
        return _CPU
    if d._type == "cuda":
        raise cuda_not_available()
    raise NotImplementedError(f"tensorlib has no '{d._type}' backend: tensors live on the CPU only")


@public()
def set_default_device(device: "device | str | int | None") -> None:
    """Make ``device`` the default of factories (``None`` restores the CPU); only the CPU can hold tensors."""
    _DEFAULT.device = _CPU if device is None else _device_cls(device)


@public()
def get_default_device() -> device:
    """The device factories use when given none (raises if it cannot hold tensors)."""
    check_device(None)
    return _DEFAULT.device


_SIZES: dict[tuple, Size] = {}


def _size_of(shape: tuple) -> Size:
    """``Size(shape)``, shared between tensors of one shape: making one costs more than looking it up."""
    size = _SIZES.get(shape)
    if size is None:
        if len(_SIZES) >= 4096:  # a program that keeps making new shapes: start over rather than grow
            _SIZES.clear()
        size = _SIZES[shape] = _new_tuple(Size, shape)
    return size


def _init(t: Tensor, data: np.ndarray) -> None:
    """Set every slot of a fresh tensor: ``data``, and no history, grad requirement, version counter or base."""
    t._data = data
    t._size = None
    t._grad_fn = None
    t._requires_grad = False
    t._vc = None
    t._base = None
    t._view_version = None


def _wrap(data: np.ndarray) -> Tensor:
    """A new plain Tensor around ``data`` (no copy, no checks: the hot path of every op).

    ``wrap`` in tensorlib/_accel.c is its compiled twin (new slots go in both, and in its ``setup``).
    """
    t = _new(Tensor)
    t._data = data
    t._size = None
    t._grad_fn = None
    t._requires_grad = False
    t._vc = None
    t._base = None
    t._view_version = None
    return t


_wrap_python = _wrap  # the reference the compiled twin is tested against
if accel is not None:  # the compiled twin of _wrap (see tensorlib._accelerator)
    accel.setup(Tensor, np.ndarray, np.asarray)
    _wrap = accel.wrap  # noqa: F811


def _make_view(base: Tensor, data: np.ndarray, cls: type = Tensor) -> Tensor:
    """A tensor around ``data``, a NumPy view of ``base``'s data: shares its version counter."""
    t: Tensor = _new(cls)
    t._data = data
    t._size = None
    t._grad_fn = None
    t._requires_grad = False
    c = base._vc
    if c is None:
        c = base._vc = [0]
    t._vc = c
    t._view_version = c[0]
    b = base._base
    t._base = base if b is None else b
    return t


def refresh_view(t: Tensor) -> None:
    """Give view ``t`` a history through its base if the base was modified in place since it was set.

    An in-place change of the base (or of another view of it) rewrites the
    base's history; a view made before still points at the old one. As torch
    does, its ``grad_fn`` is then rebuilt as "this region of the base".
    """
    c = t._vc
    if c is None or c[0] == t._view_version:
        return

    hooks.regenerate_view_history(t)


_INTERNAL = frozenset({"_meta"})


def _user_state(t: Tensor) -> dict | None:
    """Attributes a user (or subclass) set on ``t``, without tensorlib's own fields."""
    d = t.__dict__
    if not d:
        return None
    state = {k: v for k, v in d.items() if k not in _INTERNAL}
    return state or None


def bump_version(t: Tensor) -> None:
    """Record an in-place modification of ``t`` (and of every tensor sharing its counter)."""
    c = t._vc
    if c is None:
        t._vc = [1]
    else:
        c[0] += 1


def wrap_dim(dim: Any, ndim: int) -> int:
    """Normalise a possibly negative dimension, raising torch's IndexError when out of range.

    A ``dim`` that is not an int must be an integer index (a NumPy integer, a
    one-element integer tensor); anything else, bool included, is torch's
    TypeError naming the op.
    """
    if type(dim) is not int:
        dim = _dim_value(dim)
    lo = -ndim if ndim else -1
    hi = ndim - 1 if ndim else 0
    if dim < lo or dim > hi:
        if not -9223372036854775808 <= dim < 9223372036854775808:
            raise ValueError("Overflow when unpacking long long")  # torch's parser, before the range is looked at
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 else (dim if ndim else 0)


def _dim_value(dim: Any) -> int:
    if isinstance(dim, (Tensor, np.integer)) or (hasattr(dim, "__index__") and not isinstance(dim, bool)):
        try:
            return dim.__index__()
        except TypeError:
            pass
    raise TypeError(f"{_public_caller()}(): argument 'dim' must be int, not {type(dim).__name__}")


def _public_caller() -> str:
    """The name of the public op running (the innermost non-underscore function of tensorlib's ops)."""
    f: FrameType | None = sys._getframe(3)  # wrap_dim's caller
    while f is not None:
        code = f.f_code
        file = code.co_filename
        if "ops" in file and not file.endswith("_util.py") and not code.co_name.startswith("_"):
            return code.co_name
        f = f.f_back
    return "op"


def _index_value(v: Any, what: str) -> int:
    if isinstance(v, Tensor):
        return v.__index__()
    try:
        return v.__index__()
    except AttributeError:
        raise TypeError(f"{what} must be an int, not {type(v).__name__}") from None


def _scalar_value(t: Tensor) -> Any:
    a = t._data
    if a.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return a.reshape(()).item()


def _set_requires_grad(t: Tensor, value: Any) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"requires_grad must be a bool, got {type(value).__name__}")
    value = bool(value)
    if t._grad_fn is not None:
        if not value:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        return
    if value and t._data.dtype.kind not in "fc":
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    t._requires_grad = value


def _set_grad(t: Tensor, value: Any) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
        meta = t._meta
        wanted = _SAME_DTYPE if meta is None else meta.grad_dtype
        if wanted is not _SAME_DTYPE:
            if wanted is not None and value._data.dtype != wanted.np:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_NAMES[value._data.dtype.name]}' to a tensor "
                    f"with grad_dtype '{_TITLE_NAMES[wanted.name]}'. The gradient must match the tensor's grad_dtype (defaults to the "
                    "tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
                    "allow any dtype."
                )
        elif value._data.dtype != t._data.dtype:
            raise RuntimeError(
                f"assigned grad has data of a different type: expected {FROM_NP[t._data.dtype]!r}, "
                f"got {FROM_NP[value._data.dtype]!r}"
            )
        if value._data.shape != t._data.shape:
            raise RuntimeError(
                f"assigned grad has data of a different size: expected {list(t._data.shape)}, "
                f"got {list(value._data.shape)}"
            )
    if value is None and t._meta is None:
        return
    t._get_meta().grad = value


def _dtype_from_type_string(name: str) -> _DType:
    short = name.rsplit(".", 1)[-1]
    for key, legacy in _LEGACY_NAMES.items():
        if legacy == short:
            return getattr(_dtype, key)
    raise ValueError(f"invalid type: '{name}'")


def _legacy_construct(args: tuple, kwargs: dict) -> np.ndarray:
    """The legacy ``Tensor(...)`` forms: sizes give uninitialised data, a sequence gives values."""
    check_device(kwargs.pop("device", None))
    if kwargs:
        raise TypeError(f"Tensor(): got unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
    np_float = _dtype.DEFAULT.np_float
    if not args:
        return np.empty((0,), dtype=np_float)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            return a._data
        if isinstance(a, Size):
            return np.empty(tuple(a), dtype=np_float)
        if isinstance(a, (list, tuple, np.ndarray)) or (hasattr(a, "__array__") and not isinstance(a, np.generic)):
            return hooks.array_from_data(a, _dtype.DEFAULT.float)
        check_legacy_data(a)  # (a NumPy scalar is a size or an error, as a Python number is)
    return np.empty(hooks.parse_size(args, "new"), dtype=np_float)


def check_legacy_data(a: Any) -> None:
    """torch's errors for a lone argument of a legacy constructor that is neither a size nor a sequence."""
    if isinstance(a, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(a).__name__}'")
    if isinstance(a, bool) or not hasattr(a, "__index__"):  # (an integer is a size)
        kind = type(a)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"new(): data must be a sequence (got {name})")


def _rebuild(cls: type, data: np.ndarray, requires_grad: bool, grad: Any, state: dict | None) -> Tensor:
    t: Tensor = _new(cls)
    _init(t, data)
    t._requires_grad = requires_grad
    if grad is not None:
        t._get_meta().grad = grad
    if state:
        t.__dict__.update(state)
    return t


def _convert(ret: Any, cls: type, args: tuple = (), kwargs: dict | None = None) -> Any:
    """Return ``ret`` with plain Tensors (also inside tuples and lists) as instances of ``cls``.

    A fresh result simply changes class; a result that is one of the call's
    arguments (``t.to(t.dtype)`` returns ``t``) is left alone and aliased
    instead, so no caller's tensor changes type behind its back.
    """
    if isinstance(ret, Tensor):
        if isinstance(ret, cls):
            return ret
        if type(ret) is Tensor and not ret._requires_grad and not _is_argument(ret, args, kwargs):
            try:
                ret.__class__ = cls
                return ret
            except TypeError:  # the subclass changed the layout (its own __slots__)
                pass

        return hooks.alias(ret, cls)
    if isinstance(ret, tuple):
        items = [_convert(r, cls, args, kwargs) for r in ret]
        if hasattr(ret, "_fields"):
            return type(ret)(*items)
        return type(ret)(items) if type(ret) is not tuple else tuple(items)
    if isinstance(ret, list):
        return [_convert(r, cls, args, kwargs) for r in ret]
    return ret


def _is_argument(t: Tensor, args: tuple, kwargs: dict | None) -> bool:
    """Whether ``t`` is one of the call's arguments, positional or keyword, or an element of a list/tuple one."""
    for a in args:
        if a is t or (isinstance(a, (list, tuple)) and any(e is t for e in a)):
            return True
    if kwargs:
        for a in kwargs.values():
            if a is t or (isinstance(a, (list, tuple)) and any(e is t for e in a)):
                return True
    return False


_NOT_SEQUENCES.add(Tensor)

# Filled in by tensorlib/__init__ once the overridable accessors exist: the
# results of these are returned as they are (torch does not wrap ``.grad``).
_NO_WRAP: set = set()
if accel is not None:
    accel.setup_default_result(_NOT_SEQUENCES, _NO_WRAP, _default_result)


# Assign as ``__torch_function__`` to make a Tensor subclass dispatch like a plain Tensor.
_disabled_torch_function_impl = protocol.disabled_impl


def is_grad_recording(*tensors: Tensor) -> bool:
    for t in tensors:
        if t._requires_grad:
            return _GRAD.enabled
    return False

