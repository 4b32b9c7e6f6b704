"""dispatch.Implementations and dispatch.Rewrap: the duck-type author's table, its signature checks, its
handler (as an instance method or a classmethod), operators, properties, fallbacks; on tensorlib's protocol
and on a protocol of its own."""

from __future__ import annotations

import inspect
from collections import namedtuple
from typing import Any

import pytest

import dispatch
import tensorlib
from dispatch import Implementations, Rewrap, SignatureError, signature_problems
from tensorlib.overrides import protocol


def _sig(fn: Any) -> inspect.Signature:
    return inspect.signature(fn)


def public(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    return None


@pytest.mark.parametrize(("impl", "strict", "expected"), [
    (lambda input: 0, False, []),  # a partial implementation: what it omits has defaults
    (lambda input, dim=None, keepdim=False, *, dtype=None, out=None: 0, True, []),
    (lambda *args, **kwargs: 0, True, []),
    (lambda x: 0, False, ["positional parameter 1 is named 'x', the public function's 'input'"]),
    (lambda input, dim=0: 0, False, ["'dim' defaults to 0, the public function's to None"]),
    (lambda input, dim: 0, False, ["'dim' has no default, the public function's defaults to None"]),
    (lambda input, /: 0, False, ["'input' is positional-only, the public function's can be passed by keyword"]),
    (lambda input, *, dim=None: 0, False, ["'dim' is keyword-only, the public function's can be passed by position"]),
    (lambda input, *, scale: 0, False, ["keyword-only parameter 'scale' is not a parameter of the public function"]),
    (lambda input, dim=None, keepdim=False, extra=1: 0, False, []),
    (lambda input, dim=None, keepdim=False, extra=1: 0, True,
     ["parameter 'extra' is not a parameter of the public function", "parameter 'dtype' is missing",
      "parameter 'out' is missing"]),
    (lambda input, dim, keepdim, extra: 0, False,
     ["'dim' has no default, the public function's defaults to None",
      "'keepdim' has no default, the public function's defaults to False",
      "positional parameter 'extra' has no counterpart and no default"]),
    (lambda input, *, dtype=1: 0, False, ["'dtype' defaults to 1, the public function's to None"]),
    (lambda: 0, False, ["required parameter 'input' is missing"]),
    (lambda input: 0, True, ["parameter 'dim' is missing", "parameter 'keepdim' is missing",
                             "parameter 'dtype' is missing", "parameter 'out' is missing"]),
])
def test_signature_problems(impl, strict, expected):
    assert signature_problems(_sig(public), _sig(impl), strict=strict) == expected


def test_a_required_keyword_only_parameter_must_be_taken():
    def pub(x, *, mode):
        return x

    assert signature_problems(_sig(pub), _sig(lambda x: 0)) == ["required keyword-only parameter 'mode' is missing"]
    assert signature_problems(_sig(pub), _sig(lambda x, **kw: 0)) == []


def test_positional_only_public_parameters_may_be_named_freely():
    def pub(a, b, /):
        return a

    assert signature_problems(_sig(pub), _sig(lambda x, y: 0)) == []


def test_a_mis_signed_implementation_is_refused_when_declared_naming_both_signatures():
    table = Implementations(protocol)
    with pytest.raises(SignatureError) as info:
        @table.implements(tensorlib.sum)
        def total(x):
            return 0
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    assert "total(x) cannot implement tensorlib.sum(input" in message and "named 'x'" in message
    assert tensorlib.sum not in table and len(table) == 0  # nothing was filed


def test_declaring_twice_and_declaring_non_callables_are_errors():
    table = Implementations(protocol)
    table.implements(tensorlib.mean)(lambda input: 1.0)
    with pytest.raises(ValueError, match="tensorlib.mean already has an implementation"):
        table.implements(tensorlib.mean)(lambda input: 2.0)
    with pytest.raises(TypeError, match="decorates a callable"):
        table.implements(tensorlib.neg)(3)
    with pytest.raises(TypeError, match="needs a public function"):
        table.implements(42)


class _Duck:
    """A duck type whose table is attached by each test."""

    def __init__(self, value: float) -> None:
        self.value = value


def _duck_class(table: Implementations, classmethod_handler: bool) -> type:
    handler = classmethod(table.handler) if classmethod_handler else table.handler
    return type("Duck", (_Duck,), {"__torch_function__": handler})


@pytest.mark.parametrize("as_classmethod", [True, False], ids=["classmethod", "instance-method"])
def test_the_handler_answers_from_the_table_and_declines_the_rest(as_classmethod, recwarn):
    table = Implementations(protocol)
    Duck = _duck_class(table, as_classmethod)

    @table.implements(tensorlib.mean)
    def mean(input):
        return input.value / 2

    d = Duck(3.0)
    assert tensorlib.mean(d) == 1.5
    with pytest.raises(TypeError, match="no implementation found for 'tensorlib.neg' on types that implement "
                                        "__torch_function__: \\[Duck\\]"):
        tensorlib.neg(d)
    assert tensorlib.mean in table and table.get(tensorlib.mean) is mean
    assert list(table) == [tensorlib.mean] and table.functions() == {tensorlib.mean: mean}


def test_accepts_limits_the_types_a_call_may_involve():
    table = Implementations(protocol, accepts=(tensorlib.Tensor, _Duck))
    Duck = _duck_class(table, True)

    class Stranger:
        __torch_function__ = classmethod(lambda cls, func, types, args=(), kwargs=None: NotImplemented)

    table.implements(tensorlib.add)(lambda input, other: "added")
    assert tensorlib.add(Duck(1), tensorlib.ones(1)) == "added"
    with pytest.raises(TypeError, match="no implementation found"):
        tensorlib.add(Duck(1), Stranger())


def test_operators_are_filed_under_the_function_handlers_receive():
    table = Implementations(protocol)
    Duck = _duck_class(table, True)
    table.implements(tensorlib.Tensor.__add__)(lambda self, other: ("plus", other.value))
    # ``tensor + duck``: handlers receive Tensor.add for the operator, as in torch
    assert tensorlib.Tensor.add in table
    t = tensorlib.ones(2)
    assert (t + Duck(5)) == ("plus", 5)


def test_properties_are_filed_by_their_getter():
    table = Implementations(protocol)
    Duck = _duck_class(table, True)

    @table.implements(tensorlib.Tensor.shape)
    def shape(self):
        return ("duck", self.value)

    assert tensorlib.Tensor.shape.__get__(Duck(7)) == ("duck", 7)
    with pytest.raises(SignatureError, match="required parameter 'self' is missing"):
        table.implements(tensorlib.Tensor.dtype)(lambda: None)
    table.implements(tensorlib.Tensor.requires_grad.__set__)(lambda self, value: None)


def test_rewrap_runs_unhandled_functions_on_the_plain_values_and_wraps_results():
    class Tagged:
        def __init__(self, t, tag):
            self.t, self.tag = t, tag

    table = Implementations(protocol, fallback=Rewrap(Tagged, unwrap=lambda x: x.t,
                                                      wrap=lambda r, inst: Tagged(r, inst[0].tag)))
    Tagged.__torch_function__ = classmethod(table.handler)
    a = Tagged(tensorlib.tensor([1.0, 2.0]), "a")
    b = Tagged(tensorlib.tensor([3.0, 4.0]), "b")
    r = tensorlib.add(a, b)
    assert type(r) is Tagged and r.tag == "a" and r.t.tolist() == [4.0, 6.0]
    stacked = tensorlib.stack([b, a])  # instances inside a list argument
    assert stacked.tag == "b" and stacked.t.tolist() == [[3.0, 4.0], [1.0, 2.0]]


def test_rewrap_with_wrap_types_keeps_other_results_and_named_tuples():
    class Tagged:
        def __init__(self, t):
            self.t = t

    fallback = Rewrap(Tagged, unwrap=lambda x: x.t, wrap=lambda r, inst: Tagged(r), wrap_types=tensorlib.Tensor)
    table = Implementations(protocol, fallback=fallback)
    Tagged.__torch_function__ = classmethod(table.handler)
    x = Tagged(tensorlib.tensor([[1.0, 5.0], [7.0, 2.0]]))
    result = tensorlib.max(x, dim=1)
    assert type(result).__name__ == "max" and type(result.values) is Tagged and type(result.indices) is Tagged
    assert result.values.t.tolist() == [5.0, 7.0]
    assert tensorlib.Tensor.dim(x) == 2  # an int result is returned as it is
    pair = namedtuple("pair", "left right")
    assert fallback._up(pair(tensorlib.ones(1), 3), []).right == 3


def test_a_protocol_of_its_own():
    proto = dispatch.Protocol("__shape_function__")

    @proto.overridable
    def area(shape, scale=1):
        return shape * scale

    table = Implementations(proto)

    class Square:
        __shape_function__ = table.handler

        def __init__(self, side):
            self.side = side

    @table.implements(area)
    def square_area(shape, scale=1):
        return shape.side ** 2 * scale

    assert area(Square(3), scale=2) == 18 and area(4) == 4
    with pytest.raises(SignatureError, match="'scale' defaults to 2, the public function's to 1"):
        table.implements(area)(lambda shape, scale=2: 0)


def _run_main(name: str, capsys: pytest.CaptureFixture) -> list[str]:
    import os
    import runpy
    import warnings

    path = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples", name)
    ns = runpy.run_path(path, run_name="toolkit_test")
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the verbatim seed defines __torch_function__ as a plain method
        ns["main"]()
    return capsys.readouterr().out.splitlines()


def test_the_toolkit_scalar_tensor_behaves_as_the_seeds(capsys):
    seed = _run_main("seed_scalar_tensor.py", capsys)
    ours = _run_main("toolkit_scalar_tensor.py", capsys)
    first_iteration = 7  # the seed first shows the type without __torch_function__
    assert ours[:-1] == seed[first_iteration:]
    assert ours[-1].startswith("TypeError: ") and "cannot implement tensorlib.sum(input" in ours[-1]


def test_the_toolkit_metadata_tensor_behaves_as_the_seeds(capsys):
    seed = _run_main("seed_metadata_tensor.py", capsys)
    ours = _run_main("toolkit_metadata_tensor.py", capsys)
    assert ours[:len(seed)] == seed
    assert "{'owner': 'Ministry of Silly Walks', 'reviewed': True}" in ours[len(seed):]
