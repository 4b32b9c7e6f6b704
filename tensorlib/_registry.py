"""The op registry: each public function and Tensor method is declared once, next to its implementation.

An implementation declares where it is public with :func:`op` (it dispatches
through ``__torch_function__``) or :func:`public` (it does not)::

    @op(variants="function method", inplace="method", aliases=("multiply",))
    def mul(input, other, *, out=None): ...

declares ``tensorlib.mul``, ``tensorlib.multiply``, ``Tensor.mul``,
``Tensor.multiply`` and the in-place ``Tensor.mul_`` / ``Tensor.multiply_``
(derived from ``mul`` unless an implementation of its own is declared). The
decorator only records; it returns the implementation unchanged, so ops call
one another without dispatch. :mod:`tensorlib._namespace` turns the
declarations into the public objects when each namespace module is built,
and the stub generator, ``tensorlib.overrides`` and the test tables read them
from here. This module imports nothing from tensorlib but the generated list of what the modules left for
first use declare (data only): every layer may declare.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Iterable, Literal, NamedTuple, TypeVar

from ._declarations import DECLARED

F = TypeVar("F", bound=Callable[..., Any])

TENSORLIB = "tensorlib"
TENSOR = "tensorlib.Tensor"  # the namespace of methods, operators and properties
LINALG = "tensorlib.linalg"
SPECIAL = "tensorlib.special"
FFT = "tensorlib.fft"
NN_FUNCTIONAL = "tensorlib.nn.functional"
NN_INIT = "tensorlib.nn.init"
NN_UTILS = "tensorlib.nn.utils"
NN_UTILS_RNN = "tensorlib.nn.utils.rnn"
AUTOGRAD = "tensorlib.autograd"
AUTOGRAD_FUNCTIONAL = "tensorlib.autograd.functional"
SERIALIZATION = "tensorlib.serialization"
TESTING = "tensorlib.testing"
UTILS_DATA = "tensorlib.utils.data"

Dispatch = Literal["full", "modes", "none"]

# Op modules that ``import tensorlib`` leaves for first use: what they declare is listed, generated, in
# tensorlib/_declarations.py (``python -m tensorlib._stubs`` writes it; a test checks it is fresh), so the
# namespaces know their names before they are imported. None may declare an operator (operators are made at once).
ON_FIRST_USE_MODULES = (
    "tensorlib.ops.fft",
    "tensorlib.ops.numeric",
    "tensorlib.ops.special",
    "tensorlib.ops.special_functions",
    "tensorlib.ops.decompositions",
    "tensorlib.ops.linalg_functions",
    "tensorlib.ops.sorting",
    "tensorlib.nn._toplevel",  # imports (and so declares for) every private module of tensorlib.nn
    "tensorlib._repr",  # the printer (set_printoptions); Tensor.__repr__ imports it through its hook
    "tensorlib.serialization",  # save and load (tensorlib.save is declared there)
)


class Binding(NamedTuple):  # a named tuple, not a dataclass: ~1000 are made at import, three times faster
    """One public name: ``namespace.name`` is ``impl`` made public with the given kind of dispatch.

    ``inplace_of`` is set for an in-place variant the registry derives: the
    public object writes ``inplace_of``'s result into ``self``.
    ``method_form`` marks a function reused as a method (its first parameter
    becomes ``self`` and it loses ``out=``).
    """

    namespace: str
    name: str
    impl: Any
    dispatch: Dispatch = "full"
    method_form: bool = False
    inplace_of: Callable | None = None
    prepare: Callable[[tuple, dict], tuple[tuple, dict]] | None = None


BINDINGS: list[Binding] = []
_SEEN: dict[tuple[str, str], Binding] = {}


def _add(binding: Binding) -> None:
    key = (binding.namespace, binding.name)
    previous = _SEEN.get(key)
    if previous is None:
        _SEEN[key] = binding
        BINDINGS.append(binding)
    elif previous.inplace_of is not None and binding.inplace_of is None:
        # an in-place implementation of its own replaces the derived one
        _SEEN[key] = binding
        BINDINGS[BINDINGS.index(previous)] = binding
    elif binding.inplace_of is None and previous.impl is not binding.impl:
        raise ValueError(f"{binding.namespace}.{binding.name} is declared twice")


def _split(variants: str) -> set[str]:
    kinds = set(variants.split())
    unknown = kinds - {"function", "method"}
    if unknown:
        raise ValueError(f"unknown variant(s) {sorted(unknown)}: use 'function' and/or 'method'")
    return kinds


def op(
    *,
    variants: str = "function",
    namespace: str | tuple[str, ...] = TENSORLIB,
    inplace: str | None = None,
    aliases: Iterable[str] = (),
    name: str | None = None,
    dispatch: Dispatch = "full",
    prepare: Callable[[tuple, dict], tuple[tuple, dict]] | None = None,
) -> Callable[[F], F]:
    """Declare an overridable op: where its function and method forms are public.

    :param variants: ``"function"``, ``"method"`` or both (``"function method"``).
    :param namespace: the module(s) of the function form (``tensorlib`` by default).
    :param inplace: derive the in-place variant ``name_`` with these variants
        (``"method"``, or ``"function method"`` for ``tensorlib.name_`` too; in-place
        functions exist only in ``tensorlib`` itself).
    :param aliases: further public names of the same op (in-place aliases follow).
    :param name: the public name when it is not the implementation's ``__name__``.
    :param dispatch: ``"full"`` (overridable), or ``"modes"`` for functions with no
        tensor argument to dispatch on (factories), which only active modes see.
    :param prepare: ``(args, kwargs) -> (args, kwargs)``: the call as handlers see
        it, where torch normalises arguments before dispatching (see ``protocol.wrap``).
    """
    kinds = _split(variants)
    inplace_kinds = _split(inplace) if inplace else set()
    namespaces = (namespace,) if isinstance(namespace, str) else tuple(namespace)

    def declare(impl: F) -> F:
        names = [name or impl.__name__, *aliases]
        for public_name in names:
            if "function" in kinds:
                for ns in namespaces:
                    _add(Binding(ns, public_name, impl, dispatch, prepare=prepare))
            if "method" in kinds:
                _add(Binding(TENSOR, public_name, impl, dispatch, method_form=True))
            if inplace_kinds:
                inplace_name = public_name + "_"
                # as in torch, in-place functions live in the top-level namespace only
                if "function" in inplace_kinds and TENSORLIB in namespaces:
                    _add(Binding(TENSORLIB, inplace_name, None, dispatch, inplace_of=impl))
                if "method" in inplace_kinds:
                    _add(Binding(TENSOR, inplace_name, None, dispatch, inplace_of=impl))
        return impl

    return declare


def public(*, namespace: str | tuple[str, ...] = TENSORLIB, name: str | None = None) -> Callable[[F], F]:
    """Declare a public function or class that does not dispatch (listed by ``get_ignored_functions``)."""
    namespaces = (namespace,) if isinstance(namespace, str) else tuple(namespace)

    def declare(obj: F) -> F:
        for ns in namespaces:
            _add(Binding(ns, name or obj.__name__, obj, "none"))
        return obj

    return declare


def deferred(namespace: str) -> dict[str, str]:
    """The names of ``namespace`` declared by modules not imported yet (see ON_FIRST_USE_MODULES): name -> module."""
    return {name: module for module, declared in DECLARED.items() if module not in sys.modules
            for ns, name in declared if ns == namespace}


def load_deferred(namespace: str | None = None) -> None:
    """Import the modules left for first use that declare into ``namespace`` (all of them with None)."""
    for module, declared in DECLARED.items():
        if module not in sys.modules and (namespace is None or any(ns == namespace for ns, _ in declared)):
            importlib.import_module(module)


def bindings(namespace: str, *, load: bool = True) -> list[Binding]:
    """The declarations of one namespace, in declaration order.

    ``load=False``: only those of the modules imported so far (see :func:`deferred` for the others).
    """
    if load:
        load_deferred(namespace)
    return [b for b in BINDINGS if b.namespace == namespace]


def binding(namespace: str, name: str) -> Binding | None:
    """The declaration of ``namespace.name`` among the modules imported so far."""
    return _SEEN.get((namespace, name))


def namespaces() -> list[str]:
    """Every namespace something was declared in."""
    load_deferred()
    return sorted({b.namespace for b in BINDINGS})
