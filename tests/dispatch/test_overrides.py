"""Introspection (tensorlib.overrides): every public callable is overridable or ignored, and all dispatch."""

from __future__ import annotations

import inspect
import types

import pytest

import tensorlib
import tensorlib.linalg
import tensorlib.nn.functional
import tensorlib.nn.init
from tensorlib import _overrides
from tensorlib._calling import OPERATOR_FUNCS
from tensorlib.overrides import (
    get_ignored_functions,
    get_overridable_functions,
    get_testing_overrides,
    is_tensor_method_or_property,
    resolve_name,
)

MODULE_NAMESPACES = [
    tensorlib, tensorlib.nn.functional, tensorlib.nn.init, tensorlib.linalg, tensorlib.special, tensorlib.fft,
    tensorlib.autograd,
]


def public_callables(namespace):
    """(name, object) for every public callable of a module, or every public method/operator/property of a class."""
    if isinstance(namespace, types.ModuleType):
        for name in dir(namespace):
            obj = getattr(namespace, name)
            if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            yield name, obj
        return
    for name, obj in vars(namespace).items():
        dunder = name.startswith("__") and name.endswith("__")
        if name.startswith("_") and not dunder:
            continue
        if isinstance(obj, property):
            yield name, obj
        elif inspect.isfunction(obj) or isinstance(obj, (staticmethod, classmethod)):
            yield name, obj


def test_every_public_callable_is_overridable_or_ignored():
    overridable = get_overridable_functions()
    ignored = get_ignored_functions()
    overridable_ids = {id(f) for fs in overridable.values() for f in fs}
    missing = []
    for ns in MODULE_NAMESPACES + [tensorlib.Tensor]:
        for name, obj in public_callables(ns):
            if isinstance(obj, property):
                ok = obj.__get__ in overridable.get(ns, [])
            else:
                target = obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj
                ok = id(target) in overridable_ids or target in ignored
            if not ok:
                missing.append(f"{getattr(ns, '__name__', ns)}.{name}")
    assert missing == []


def test_nothing_is_both_overridable_and_ignored():
    overridable = {f for fs in get_overridable_functions().values() for f in fs}
    assert not overridable & get_ignored_functions()


def test_namespaces_and_sorted_listing():
    table = get_overridable_functions()
    for ns in (tensorlib, tensorlib.Tensor, tensorlib.nn.functional, tensorlib.nn.init, tensorlib.linalg,
               tensorlib.special, tensorlib.fft):
        assert ns in table and table[ns]
    # the same operation under another namespace is its own overridable function, as in torch
    assert tensorlib.special.erf is not tensorlib.erf and tensorlib.special.erf in table[tensorlib.special]
    names = [f.__name__ for f in table[tensorlib.nn.functional]]
    assert names == sorted(names)
    assert tensorlib.add in table[tensorlib] and tensorlib.Tensor.add in table[tensorlib.Tensor]
    assert tensorlib.Tensor.grad.__get__ in table[tensorlib.Tensor]
    assert tensorlib.Tensor.grad.__set__ in table[tensorlib.Tensor]


def test_seed_listing_of_nn_functional():
    nn_funcs = get_overridable_functions()[tensorlib.nn.functional]
    assert [f.__name__ for f in nn_funcs[:5]] == [
        "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
        "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
    ]


def test_testing_overrides_cover_everything_with_identical_signatures():
    overrides = get_testing_overrides()
    every = [f for fs in get_overridable_functions().values() for f in fs]
    assert set(every) == set(overrides)
    for f in every:
        dummy = overrides[f]
        if getattr(f, "__name__", "") in ("__get__", "__set__"):
            expected = "(self)" if f.__name__ == "__get__" else "(self, value)"
            assert str(inspect.signature(dummy)) == expected
        else:
            assert inspect.signature(dummy) == _without_annotations(inspect.signature(f)), f


def _without_annotations(sig):
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return sig.replace(parameters=params, return_annotation=inspect.Signature.empty)


def test_seed_signature_of_add():
    dummy_add = get_testing_overrides()[tensorlib.add]
    assert str(inspect.signature(dummy_add)) == "(input, other, *, alpha=1, out=None)"
    assert dummy_add(1, 2) == -1
    with pytest.raises(TypeError):
        dummy_add(1, 2, 3)


def test_resolve_name_round_trips():
    for fs in get_overridable_functions().values():
        for f in fs:
            name = resolve_name(f)
            assert name is not None and eval(name, {"tensorlib": tensorlib}) == f, name
    assert resolve_name(tensorlib.add) == "tensorlib.add"
    assert resolve_name(tensorlib.Tensor.add) == "tensorlib.Tensor.add"
    assert resolve_name(tensorlib.Tensor.grad.__get__) == "tensorlib.Tensor.grad.__get__"
    assert resolve_name(tensorlib.nn.functional.relu) == "tensorlib.nn.functional.relu"
    assert resolve_name(tensorlib.special.expit) == "tensorlib.special.expit"


def test_is_tensor_method_or_property():
    assert is_tensor_method_or_property(tensorlib.Tensor.add)
    assert is_tensor_method_or_property(tensorlib.Tensor.__add__)
    assert is_tensor_method_or_property(tensorlib.Tensor.shape.__get__)
    assert not is_tensor_method_or_property(tensorlib.add)
    assert not is_tensor_method_or_property(tensorlib.nn.functional.relu)


def test_seed_module_spelling():
    assert _overrides.get_overridable_functions is get_overridable_functions


def test_seed_module_spelling_is_the_same_module():
    import tensorlib._overrides
    from tensorlib._overrides import get_testing_overrides as seed_spelling

    assert tensorlib._overrides is tensorlib.overrides
    assert _overrides is tensorlib.overrides
    assert seed_spelling is get_testing_overrides


class Everything:
    """Answers every call with the testing override's result, recording the function."""

    def __init__(self):
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func)
        return get_testing_overrides()[func](*args, **(kwargs or {}))


def _call_with(func, duck):
    name = getattr(func, "__name__", "")
    if name == "__get__":
        return func(duck)
    if name == "__set__":
        return func(duck, 1)
    sig = inspect.signature(func)
    args = []
    kwargs = {}
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            if not args:
                args.append(duck)
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif p.default is p.empty:
            if p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = duck
            else:
                args.append(duck)
    if not args and not kwargs:
        args.append(duck)
    return func(*args, **kwargs)


def test_every_overridable_function_dispatches_to_a_duck_type():
    failures = []
    for fs in get_overridable_functions().values():
        for f in fs:
            duck = Everything()
            try:
                result = _call_with(f, duck)
            except Exception as e:  # noqa: BLE001 - report every failure at once
                failures.append(f"{resolve_name(f)}: {type(e).__name__}: {e}")
                continue
            expected = None if getattr(f, "__name__", "") == "__set__" else -1  # __set__ always returns None
            # operators reach handlers as the method torch reports them as (``t + 1`` as ``Tensor.add``)
            reported = OPERATOR_FUNCS.get(f.__name__) if getattr(f, "__qualname__", "").startswith("Tensor.") else None
            func = getattr(tensorlib.Tensor, reported) if reported else f
            if result != expected or not duck.seen or duck.seen[0] != func:
                failures.append(f"{resolve_name(f)}: handler not called with the function")
    assert failures == []
