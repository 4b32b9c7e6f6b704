"""tensorlib.overrides' private helpers and the rest of torch.overrides' names, with torch's behaviour.

Each test runs on tensorlib and, when it is installed, on torch (the torch runs are the parity checks).
"""

from __future__ import annotations

import warnings

import pytest

import tensorlib
import tensorlib._C
import tensorlib.overrides

NAMES = """_disable_user_warnings _enable_torch_function _get_current_function_mode _get_current_function_mode_stack
_get_function_stack_at _get_overloaded_args _get_overridable_functions _get_tensor_methods _has_torch_function
_has_torch_function_unary _has_torch_function_variadic _is_torch_function_mode_enabled _len_torch_function_stack
_pop_mode _pop_mode_temporarily _pop_torch_function_stack _push_mode _push_on_torch_function_stack
enable_reentrant_dispatch get_default_nowrap_functions redispatch_function""".split()


def mode_class(api):
    class Passthrough(api.ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    return Passthrough


def test_names_exist(api):
    for name in NAMES:
        assert callable(getattr(api.ov, name)), name


def test_public_names_match_torch():
    torch = pytest.importorskip("torch")
    import torch.overrides

    assert set(torch.overrides.__all__) <= set(tensorlib.overrides.__all__)
    private = {n for n in dir(torch.overrides) if n.startswith("_") and not n.startswith("__")
               and callable(getattr(torch.overrides, n)) and getattr(torch.overrides, n).__module__ != "typing"}
    private -= {"_add_docstr", "_P", "_R"}
    missing = sorted(n for n in private if not hasattr(tensorlib.overrides, n))
    assert missing == []


# -- mode stack helpers --------------------------------------------------------------------


def test_current_mode_and_stack(api):
    ov = api.ov
    M = mode_class(api)
    assert ov._get_current_function_mode() is None
    assert ov._get_current_function_mode_stack() == []
    with M() as a, M() as b:
        assert ov._get_current_function_mode() is b
        assert ov._get_current_function_mode_stack() == [a, b]
        assert ov._len_torch_function_stack() == 2
    assert ov._get_current_function_mode_stack() == []


def test_push_and_pop_mode(api):
    ov = api.ov
    m = mode_class(api)()
    assert ov._push_mode(m) is None
    assert ov._get_current_function_mode() is m
    assert ov._pop_mode() is m
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        ov._pop_mode()
    ov._push_mode(5)  # anything can be pushed
    assert ov._pop_mode() == 5


def test_pop_mode_temporarily(api):
    ov = api.ov
    with mode_class(api)() as m:
        with ov._pop_mode_temporarily() as popped:
            assert popped is m
            assert ov._len_torch_function_stack() == 0
            assert type(api.lib.add(api.lib.ones(1), 1)) is api.lib.Tensor
        assert ov._get_current_function_mode() is m
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        with ov._pop_mode_temporarily():
            pass


def test_enable_torch_function(api):
    ov, C = api.ov, api.C
    with C.DisableTorchFunction():
        with ov._enable_torch_function():
            assert C._is_torch_function_enabled() and not C._is_torch_function_all_disabled()
        assert C._is_torch_function_all_disabled()


def test_enable_reentrant_dispatch_outside_torch_dispatch(api):
    with pytest.raises(RuntimeError, match="Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed."):
        with api.ov.enable_reentrant_dispatch():
            pass


# -- _get_overloaded_args -----------------------------------------------------------------


def test_get_overloaded_args_order_and_filtering(api):
    lib, ov, C = api.lib, api.ov, api.C

    class L(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs)

    class LL(L):
        pass

    class P(lib.Tensor):
        __torch_function__ = C._disabled_torch_function_impl

    class Duck:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented

    t = lib.ones(1)
    l, ll, p, d = t.as_subclass(L), t.as_subclass(LL), t.as_subclass(P), Duck()
    got = ov._get_overloaded_args([t, p, l, 1, d, ll, l])
    assert [type(x) for x in got] == [LL, L, lib.Tensor, Duck]
    assert got[1] is l
    assert ov._get_overloaded_args([1, 2], get_type_fn=lambda a: L) == [1]
    with C.DisableTorchFunctionSubclass():
        assert ov._get_overloaded_args([l]) == []
    with mode_class(api)():
        assert ov._get_overloaded_args([l]) == [l]
    with pytest.raises(TypeError, match="not iterable"):
        ov._get_overloaded_args(5)


# -- tables --------------------------------------------------------------------------------


@pytest.fixture
def fresh_tables(api):
    """Leave torch's cached tables as they were: built here, they would miss later rebinding (torch._dynamo
    rebinds torch.manual_seed on import), and later tests' resolve_name would disagree."""
    yield
    if api.name == "torch":
        ov = api.ov
        for f in (ov._get_overridable_functions, ov._get_tensor_methods, ov.get_ignored_functions,
                  ov.get_testing_overrides):
            f.cache_clear()


def test_tensor_methods_and_nowrap(api, fresh_tables):
    ov, lib = api.ov, api.lib
    methods = ov._get_tensor_methods()
    assert ov._get_tensor_methods() is methods
    assert lib.Tensor.add in methods
    assert methods == set(ov.get_overridable_functions()[lib.Tensor])
    nowrap = ov.get_default_nowrap_functions()
    assert ov.get_default_nowrap_functions() is nowrap
    assert lib.Tensor.grad.__get__ in nowrap
    funcs, index = ov._get_overridable_functions()
    assert index[lib.add] == f"{api.name}.add"


def test_nowrap_set_controls_default_wrapping(api):
    lib = api.lib

    class S(lib.Tensor):
        pass

    s = lib.ones(2).as_subclass(S)
    s.grad = lib.ones(2)
    assert type(s.grad) is lib.Tensor  # not wrapped: in the nowrap set
    assert type(s.sum()) is S


# -- redispatch_function -------------------------------------------------------------------


def test_redispatch_function_from_a_subclass(api):
    lib, ov = api.lib, api.ov
    log = []

    class Logging(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(func.__name__.strip("_"))  # torch reports a * b as Tensor.mul
            return ov.redispatch_function(func, types, args, kwargs)

    def scaled_mul(a, b):
        if ov.has_torch_function((a, b)):
            return ov.handle_torch_function(scaled_mul, (a, b), a, b)
        return a * b + 1

    x = lib.tensor([3.0]).as_subclass(Logging)
    y = lib.tensor([4.0]).as_subclass(Logging)
    r = scaled_mul(x, y)
    assert log == ["scaled_mul", "mul"]
    assert r.tolist() == [13.0] and type(r) is lib.Tensor


def test_redispatch_function_from_a_mode(api):
    lib, ov = api.lib, api.ov
    log = []

    class LoggingMode(ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(func.__name__.strip("_"))  # torch reports a * b as Tensor.mul
            with self:
                return ov.redispatch_function(func, types, args, kwargs)

    def scaled_mul(a, b):
        if ov.has_torch_function((a, b)):
            return ov.handle_torch_function(scaled_mul, (a, b), a, b)
        return a * b + 1

    a, b = lib.tensor([3.0]), lib.tensor([4.0])
    with LoggingMode():
        r = scaled_mul(a, b)
    assert log == ["scaled_mul", "mul", "add"]
    assert r.tolist() == [13.0]


# -- _disable_user_warnings ------------------------------------------------------------------


def test_disable_user_warnings(api):
    module = api.name

    def warn_from(mod_name, message):
        exec(compile("import warnings\nwarnings.warn(MSG, UserWarning)", "<x>", "exec"), {"__name__": mod_name, "MSG": message})
        return 3

    quiet = api.ov._disable_user_warnings(warn_from)
    assert quiet.__name__ == "warn_from"
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert quiet(module, "x is deprecated, please use y") == 3  # filtered
        quiet("elsewhere", "x is deprecated, please use y")  # other module: kept
        quiet(module, "something else")  # other message: kept
        api.ov._disable_user_warnings(warn_from, regex="some.*")(module, "something else")  # filtered
    assert [str(w.message) for w in rec] == ["x is deprecated, please use y", "something else"]
