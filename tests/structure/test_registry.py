"""The op registry is the one table of public names: namespaces and Tensor methods are built from it."""

from __future__ import annotations

import importlib
import inspect
import pickle
import types

import pytest

import tensorlib
from tensorlib import _registry
from tensorlib._namespace import method_signature
from tensorlib._protocol import protocol
from tensorlib.overrides import get_ignored_functions, get_overridable_functions

NAMESPACES = [ns for ns in _registry.namespaces() if ns != _registry.TENSOR]


def _public_functions(module: types.ModuleType) -> set[str]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return {n for n in names if inspect.isroutine(getattr(module, n)) or hasattr(getattr(module, n), "_implementation")}


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_function_is_declared(namespace: str) -> None:
    module = importlib.import_module(namespace)
    declared = {b.name for b in _registry.bindings(namespace)}
    assert sorted(_public_functions(module) - declared) == []


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_function_is_overridable_or_ignored(namespace: str) -> None:
    module = importlib.import_module(namespace)
    registry = protocol.registry
    listed = registry.overridable_names(module) | registry.ignored_names(module)
    assert sorted(_public_functions(module) - listed) == []


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_declarations_are_bound_as_declared(namespace: str) -> None:
    module = importlib.import_module(namespace)
    overridable = {protocol.registry.resolve_name(f) for f in get_overridable_functions().get(module, [])}
    ignored = get_ignored_functions()
    for binding in _registry.bindings(namespace):
        public = getattr(module, binding.name)
        if binding.dispatch == "full":
            assert f"{namespace}.{binding.name}" in overridable, binding
            impl = protocol.registry.implementation(public)
            if binding.inplace_of is None:
                assert impl is binding.impl, binding
            else:
                assert impl.__name__ == binding.name, binding
        else:
            assert public in ignored, binding


def test_every_public_tensor_attribute_is_overridable_or_ignored() -> None:
    registry = protocol.registry
    listed = registry.overridable_names(tensorlib.Tensor) | registry.ignored_names(tensorlib.Tensor)
    public = {n for n in vars(tensorlib.Tensor) if not n.startswith("_") or (n.startswith("__") and n.endswith("__"))}
    plain = {"__module__", "__qualname__", "__doc__", "__slots__", "__dict__", "__weakref__", "__annotations__",
             "__firstlineno__", "__static_attributes__", "__array_priority__"}
    public = {n for n in public - plain if callable(vars(tensorlib.Tensor)[n]) or isinstance(vars(tensorlib.Tensor)[n], property)}
    assert sorted(public - listed) == []


def test_method_form_takes_self_and_drops_out() -> None:
    sig = inspect.signature(tensorlib.Tensor.add)
    assert list(sig.parameters) == ["self", "other", "alpha"]
    assert list(inspect.signature(tensorlib.add).parameters) == ["input", "other", "alpha", "out"]


def test_method_signature_of_a_function() -> None:
    def f(input: object, dim: int = 0, *, out: object = None) -> None:
        pass

    assert str(method_signature(f)) == "(self: 'object', dim: 'int' = 0) -> 'None'"


def test_derived_inplace_variant_writes_into_self_and_keeps_the_signature() -> None:
    t = tensorlib.tensor([0.5, 1.0])
    expected = tensorlib.exp(t)
    out = t.exp_()
    assert out is t
    assert tensorlib.equal(t, expected)
    assert inspect.signature(tensorlib.Tensor.round_) == inspect.signature(tensorlib.Tensor.round)
    assert tensorlib.exp_.__name__ == "exp_" and tensorlib.Tensor.exp_.__qualname__ == "Tensor.exp_"


def test_inplace_functions_only_in_the_top_level_namespace() -> None:
    assert hasattr(tensorlib, "xlogy_") and not hasattr(tensorlib.special, "xlogy_")
    assert hasattr(tensorlib, "erf_") and not hasattr(tensorlib.special, "erf_")


def test_aliases_are_distinct_overridable_functions_of_the_same_op() -> None:
    assert tensorlib.subtract is not tensorlib.sub
    assert protocol.registry.implementation(tensorlib.subtract) is protocol.registry.implementation(tensorlib.sub)
    assert tensorlib.Tensor.subtract_.__name__ == "subtract_"


def test_an_explicit_inplace_implementation_replaces_the_derived_one() -> None:
    from tensorlib.ops.inplace import add_

    assert protocol.registry.implementation(tensorlib.Tensor.add_) is add_


def test_declaring_two_implementations_under_one_name_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # declare into copies: the registry is global, and the stub generator reads every namespace in it
    monkeypatch.setattr(_registry, "BINDINGS", list(_registry.BINDINGS))
    monkeypatch.setattr(_registry, "_SEEN", dict(_registry._SEEN))
    namespace = "tests.structure.declared"

    @_registry.op(namespace=namespace, name="twice")
    def first(input: object) -> object:
        return input

    with pytest.raises(ValueError, match="tests.structure.declared.twice is declared twice"):
        @_registry.op(namespace=namespace, name="twice")
        def second(input: object) -> object:
            return input

    # the same implementation declared again is not a conflict
    _registry.op(namespace=namespace, name="twice")(first)


def test_unknown_variant_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        _registry.op(variants="function methods")



def _reduce_like(input: object, dim: int = 0, *, keepdim: bool = False, out: object = None) -> None:
    pass


def test_a_method_signature_is_built_when_read_and_its_shape_comes_from_the_code() -> None:
    from dispatch._codegen import DerivedSignature, signature_shape

    sig = method_signature(_reduce_like)
    assert isinstance(sig, DerivedSignature)
    shape, defaults = signature_shape(_reduce_like, sig)
    assert shape == (("self", 1, 0), ("dim", 1, 2), ("keepdim", 3, 2)) and defaults == [0, False]
    with pytest.raises(AttributeError):  # the shape came from the code object: the signature is still unbuilt
        inspect.Signature._parameters.__get__(sig)  # type: ignore[attr-defined]
    assert str(sig) == "(self: 'object', dim: 'int' = 0, *, keepdim: 'bool' = False) -> 'None'"
    plain = inspect.Signature(list(sig.parameters.values()), return_annotation=sig.return_annotation)
    assert signature_shape(_reduce_like, plain) == (shape, defaults)  # the same shape as the built signature's
    assert sig == plain and hash(sig) == hash(plain)
    assert type(sig.replace(return_annotation=None)) is inspect.Signature
    assert pickle.loads(pickle.dumps(sig)) == sig
    assert list(inspect.signature(tensorlib.Tensor.sum).parameters)[:3] == ["self", "dim", "keepdim"]
