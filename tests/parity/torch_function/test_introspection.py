"""The overrides helpers (torch's documented examples, with tensorlib's names), wrapper metadata, the seed's examples.

Each test runs against tensorlib and (when installed) torch.
"""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
import subprocess
import sys

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


class Duck:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("duck", func)


# -- torch.overrides' documented examples --------------------------------------------------------------


def test_resolve_name_examples(api):
    lib, ov = api.lib, api.ov
    assert ov.resolve_name(lib.sum) == api.rename("tensorlib.sum")
    assert ov.resolve_name(lib.Tensor.add) == api.rename("tensorlib.Tensor.add")
    assert ov.resolve_name(lib.Tensor.__add__) == api.rename("tensorlib.Tensor.__add__")
    assert ov.resolve_name(lib.Tensor.grad.__get__) == api.rename("tensorlib.Tensor.grad.__get__")
    assert ov.resolve_name(lib.nn.functional.relu) == api.rename("tensorlib.nn.functional.relu")
    for f in (lib.sum, lib.Tensor.add, lib.nn.functional.relu, lib.tensor, lib.zeros):
        assert eval(ov.resolve_name(f), {api.name: lib}) is f or eval(ov.resolve_name(f), {api.name: lib}) == f


def test_resolve_name_of_ignored_and_unknown_objects(api):
    # Unknown objects have no name (None); ignored functions get a name that evaluates back to them.
    ov = api.ov
    assert ov.resolve_name(len) is None
    assert ov.resolve_name(lambda x: x) is None
    assert ov.resolve_name(api.lib.tensor) == api.rename("tensorlib.tensor")
    assert ov.resolve_name(api.lib.manual_seed) == api.rename("tensorlib.manual_seed")


def test_is_tensor_like_examples(api):
    ov = api.ov

    class SubTensor(api.Tensor):
        ...

    class NotATensor:
        ...

    class TensorLike:
        @classmethod
        def __torch_function__(cls, func, types, args, kwargs):
            return -1

    assert ov.is_tensor_like(SubTensor([0]))
    assert ov.is_tensor_like(api.t())
    assert not ov.is_tensor_like(6)
    assert not ov.is_tensor_like(None)
    assert not ov.is_tensor_like(NotATensor())
    assert ov.is_tensor_like(TensorLike())
    assert ov.is_tensor_like(api.Parameter(api.t()))


def test_is_tensor_method_or_property_examples(api):
    ov, T = api.ov, api.Tensor
    assert ov.is_tensor_method_or_property(T.add)
    assert not ov.is_tensor_method_or_property(api.lib.add)
    assert ov.is_tensor_method_or_property(T.__add__)
    assert ov.is_tensor_method_or_property(T.grad.__get__)
    assert not ov.is_tensor_method_or_property(api.F.relu)


def test_wrap_torch_function_example(api):
    ov = api.ov

    def dispatcher(a):  # Must have the same signature as func
        return (a,)

    @ov.wrap_torch_function(dispatcher)
    def func(a):  # This will make func dispatchable by __torch_function__
        """Adds zero."""
        return a + 0

    assert func(api.t()).tolist() == [1.0, 2.0]
    assert func(Duck()) == ("duck", func)
    assert func.__name__ == "func" and func.__doc__ == "Adds zero."
    assert func.__wrapped__ is not None


def test_has_and_handle_torch_function(api):
    ov, x, d = api.ov, api.t(), Duck()
    assert ov.has_torch_function((d,)) and ov.has_torch_function([x, d])
    assert not ov.has_torch_function((x, 1, None))
    # Only the values themselves are candidates, not their elements (as in torch).
    assert not ov.has_torch_function(([d],))
    assert ov.has_torch_function_unary(d) and not ov.has_torch_function_unary(x)
    assert ov.has_torch_function_variadic(x, d) and not ov.has_torch_function_variadic(x, 1)

    def my_func(a, b=1):
        if ov.has_torch_function((a,)):
            return ov.handle_torch_function(my_func, (a,), a, b=b)
        return "default"

    assert my_func(x) == "default"
    assert my_func(d, b=3) == ("duck", my_func)

    class No:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(TypeError, match="my_func"):
        ov.handle_torch_function(my_func, (No(),), No())


def test_get_testing_overrides(api):
    overrides = api.ov.get_testing_overrides()
    dummy_add = overrides[api.lib.add]
    params = list(inspect.signature(dummy_add).parameters)
    assert params[:2] == ["input", "other"] and "out" in params
    assert dummy_add(1, 2) == -1
    assert overrides[api.Tensor.add](api.t(), 1) == -1
    assert overrides[api.Tensor.shape.__get__](api.t()) == -1
    assert overrides[api.F.relu](api.t()) == -1


def test_get_overridable_and_ignored_functions(api):
    table = api.ov.get_overridable_functions()
    ignored = api.ov.get_ignored_functions()
    assert isinstance(table, dict) and isinstance(ignored, set)
    assert api.lib.add in table[api.lib] and api.Tensor.add in table[api.Tensor]
    assert api.F.relu in table[api.F]
    for f in (api.lib.tensor, api.lib.zeros, api.lib.manual_seed, api.Tensor.as_subclass, api.Tensor.__iter__):
        assert f in ignored
    assert api.lib.add not in ignored


def test_tensorlib_tables():
    import tensorlib
    import tensorlib.autograd
    from tensorlib.overrides import get_ignored_functions, get_overridable_functions, get_testing_overrides

    table = get_overridable_functions()
    assert tensorlib.autograd.grad in table[tensorlib.autograd]
    assert tensorlib.autograd.backward in table[tensorlib.autograd]
    assert tensorlib.autograd.grad in get_testing_overrides()
    ignored = get_ignored_functions()
    overridable = {f for fs in table.values() for f in fs}
    assert not overridable & ignored
    assert {tensorlib.Tensor.as_subclass, tensorlib.Tensor.__iter__} <= ignored
    assert tensorlib.Tensor.__iter__ not in overridable and tensorlib.Tensor.as_subclass not in overridable


# -- wrapped functions ---------------------------------------------------------------------------------


def wrapped_samples():
    import tensorlib
    import tensorlib.linalg
    import tensorlib.nn.functional as F
    import tensorlib.nn.init

    return [tensorlib.add, tensorlib.sum, tensorlib.Tensor.add, tensorlib.Tensor.__add__, tensorlib.Tensor.__getitem__,
            F.relu, F.linear, tensorlib.nn.init.uniform_, tensorlib.linalg.norm, tensorlib.autograd.grad,
            tensorlib.zeros, tensorlib.tensor]


def test_wrapped_functions_keep_metadata_and_pickle_by_reference():
    import tensorlib

    for f in wrapped_samples():
        impl = f._implementation
        assert f is not impl
        assert f.__name__ == impl.__name__ or f.__name__ in ("add", "__add__", "__getitem__")
        assert f.__code__.co_name == f.__name__  # tracebacks show the real name
        assert f.__module__.startswith("tensorlib")
        assert f.__doc__ == impl.__doc__
        assert list(inspect.signature(f).parameters) == list(inspect.signature(impl).parameters) or \
            f.__qualname__.startswith("Tensor.")
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.copy(f) is f and copy.deepcopy(f) is f
        module = sys.modules[f.__module__]
        owner = functools.reduce(getattr, f.__qualname__.split(".")[:-1], module)
        assert getattr(owner, f.__name__) is f
    assert tensorlib.Tensor.add.__qualname__ == "Tensor.add" and tensorlib.Tensor.add.__module__ == "tensorlib"
    assert list(inspect.signature(tensorlib.add).parameters) == ["input", "other", "alpha", "out"]


def test_torch_style_wrappers_pickle_too(api):
    for f in (api.lib.add, api.Tensor.add, api.F.relu):
        assert pickle.loads(pickle.dumps(f)) is f


def test_bad_calls_are_rejected_before_dispatch(api):
    with pytest.raises(TypeError):
        api.lib.add(Duck())
    with pytest.raises(TypeError):
        api.lib.add(Duck(), 1, 2, 3)


# -- the seed's examples, run on both libraries ----------------------------------------------------------


def test_seed_scalar_tensor(api):
    lib = api.lib
    HANDLED_FUNCTIONS = {}

    class ScalarTensor(object):
        def __init__(self, N, value):
            self._N = N
            self._value = value

        def __repr__(self):
            return "DiagonalTensor(N={}, value={})".format(self._N, self._value)

        def tensor(self):
            return self._value * lib.eye(self._N)

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            if func not in HANDLED_FUNCTIONS or not all(issubclass(t, (lib.Tensor, ScalarTensor)) for t in types):
                return NotImplemented
            return HANDLED_FUNCTIONS[func](*args, **kwargs)

    def implements(torch_function):
        @functools.wraps(torch_function)
        def decorator(func):
            HANDLED_FUNCTIONS[torch_function] = func
            return func

        return decorator

    @implements(lib.mean)
    def mean(input):
        return float(input._value) / input._N

    def ensure_tensor(data):
        if isinstance(data, ScalarTensor):
            return data.tensor()
        return lib.as_tensor(data)

    @implements(lib.add)
    def add(input, other):
        try:
            if input._N == other._N:
                return ScalarTensor(input._N, input._value + other._value)
            raise ValueError("Shape mismatch!")
        except AttributeError:
            return lib.add(ensure_tensor(input), ensure_tensor(other))

    d = ScalarTensor(5, 2)
    assert lib.mean(d) == 0.4
    s = ScalarTensor(2, 2)
    assert repr(lib.add(s, s)) == "DiagonalTensor(N=2, value=4)"
    t = lib.tensor([[1, 1], [1, 1]])
    assert lib.add(s, t).tolist() == [[3.0, 1.0], [1.0, 3.0]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        lib.add(s, s, alpha=2)
    with pytest.raises(TypeError) as e:
        lib.mul(s, 3)
    assert "mul" in str(e.value) and "ScalarTensor" in str(e.value)
    if not api.is_torch:
        assert str(e.value) == ("no implementation found for 'tensorlib.mul' on types that implement "
                                "__torch_function__: [ScalarTensor]")


def test_seed_metadata_tensor(api):
    lib = api.lib

    class MetadataTensor(object):
        def __init__(self, data, metadata=None, **kwargs):
            self._t = lib.as_tensor(data, **kwargs)
            self._metadata = metadata

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            args = [a._t if hasattr(a, "_t") else a for a in args]
            ret = func(*args, **kwargs)
            return MetadataTensor(ret, metadata=self._metadata)

    metadata = {"owner": "Ministry of Silly Walks"}
    m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
    t = lib.tensor([[1, 2], [1, 2]])
    r = lib.add(t, m)
    assert r._metadata is metadata and r._t.tolist() == [[2, 4], [4, 6]]
    r = lib.mul(t, m)
    assert r._t.tolist() == [[1, 4], [3, 8]]


# -- the dispatch package on its own ----------------------------------------------------------------------


def test_dispatch_never_imports_tensorlib():
    code = (
        "import sys, dispatch\n"
        "p = dispatch.Protocol('__x_function__')\n"
        "f = p.wrap(lambda a: a, name='f')\n"
        "assert f(1) == 1\n"
        "assert 'tensorlib' not in sys.modules and 'numpy' not in sys.modules and 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dispatch_modes_only_wrapper_and_flat_handle():
    from dispatch import Protocol

    proto = Protocol("__probe_function__")
    make = proto.wrap(lambda n, fill=0: [fill] * n, name="make", modes_only=True)

    class Other:
        def __probe_function__(self, func, types, args, kwargs):
            return "other"

    class Seen(proto.Mode):
        def __init__(self):
            self.calls = []

        def __probe_function__(self, func, types, args, kwargs):
            self.calls.append((func, types, args, kwargs))
            return func(*args, **kwargs)

    o = Other()
    assert make(2, o) == [o, o]  # never dispatched to arguments
    with Seen() as m:
        assert make(2, fill=1) == [1, 1]
    assert m.calls == [(make, (), (2,), {"fill": 1})]  # as written
    assert make.__name__ == "make" and str(inspect.signature(make)) == "(n, fill=0)"
    assert not proto.has_override(([Other()],)) and proto.has_override((Other(),))
