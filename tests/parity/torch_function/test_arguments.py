"""Where implementers are found, what handlers receive, in what order they run, and what happens when all decline.

Every test runs against tensorlib and (when installed) torch with the same duck types.
"""

from __future__ import annotations

import copy
import warnings
from collections import namedtuple

import pytest

from tests.parity.torch_function.libraries import TORCH_PLAIN_METHOD_WARNING, kwargs_of

pytestmark = pytest.mark.filterwarnings(TORCH_PLAIN_METHOD_WARNING)


class Rec:
    """Duck type (classmethod handler) that records every call it receives and answers with its tag."""

    calls: list = []

    def __init__(self, tag="rec"):
        self.tag = tag

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        Rec.calls.append((func, types, args, kwargs))
        return ("handled", getattr(func, "__name__", None))


class PlainRec:
    """Duck type with a plain-method handler (the seed's form)."""

    def __init__(self):
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append((func, types, args, kwargs))
        return "plain"


class StaticRec:
    @staticmethod
    def __torch_function__(func, types, args=(), kwargs=None):
        return "static"


@pytest.fixture(autouse=True)
def _clear_calls():
    Rec.calls.clear()
    yield
    Rec.calls.clear()


def last():
    return Rec.calls[-1]


# -- argument positions -------------------------------------------------------------------


def test_positional_keyword_and_method_positions(api):
    lib, d, x = api.lib, Rec(), api.t()
    assert lib.add(d, x) == ("handled", "add")
    assert lib.add(x, d) == ("handled", "add")
    assert lib.add(x, other=d) == ("handled", "add")
    assert lib.add(input=d, other=x) == ("handled", "add")
    assert x.add(d) == ("handled", "add") and last()[0] is api.Tensor.add
    assert x.sum(dim=d) == ("handled", "sum")
    assert lib.clamp(x, min=d) == ("handled", "clamp")


def test_out_argument_single_and_tuple(api):
    lib, d, x = api.lib, Rec(), api.t()
    assert lib.add(x, x, out=d) == ("handled", "add")
    assert lib.stack([x, x], out=d) == ("handled", "stack")
    func, types, args, kwargs = last()
    assert args[0] == [x, x] and kwargs == {"out": d}
    assert lib.max(lib.ones(2, 2), 0, out=(d, d)) == ("handled", "max")


def test_var_args(api):
    lib, d, x = api.lib, Rec(), api.t()
    assert lib.broadcast_tensors(x, d) == ("handled", "broadcast_tensors")
    assert lib.meshgrid(x, d, indexing="ij") == ("handled", "meshgrid")
    assert lib.einsum("i->", d) == ("handled", "einsum")
    assert x.reshape(d, 2) == ("handled", "reshape")
    assert x.permute(d) == ("handled", "permute")


def test_elements_of_list_and_tuple_arguments(api):
    lib, d, x = api.lib, Rec(), api.t()
    assert lib.cat([x, d]) == ("handled", "cat")
    assert lib.cat((x, d), 0) == ("handled", "cat")
    assert lib.cat(tensors=[x, d]) == ("handled", "cat")
    assert lib.stack([d, x]) == ("handled", "stack")
    assert lib.einsum("i,i->", [x, d]) == ("handled", "einsum")
    assert lib.meshgrid([x, d], indexing="ij") == ("handled", "meshgrid")
    assert lib.sum(x, dim=(0, d)) == ("handled", "sum")
    assert x.reshape((d, 2)) == ("handled", "reshape")
    assert api.F.pad(x, (d, 0)) == ("handled", "pad")


def test_index_tuples_and_setitem_values(api):
    d, x = Rec(), api.lib.zeros(3, 3)
    assert x[d] == ("handled", "__getitem__")
    assert x[0, d] == ("handled", "__getitem__")
    assert x[[0, 1], d] == ("handled", "__getitem__")
    assert x[0, [d]] == ("handled", "__getitem__")
    assert x[..., d] == ("handled", "__getitem__")
    func, types, args, kwargs = last()
    assert func is api.Tensor.__getitem__ and args == (x, (Ellipsis, d)) and not kwargs_of(kwargs)
    x[d] = 1.0
    assert last()[0] is api.Tensor.__setitem__ and last()[2] == (x, d, 1.0)
    x[0, 1] = d
    assert last()[0] is api.Tensor.__setitem__ and last()[2] == (x, (0, 1), d)
    x[:, d] = 2.0
    assert last()[2] == (x, (slice(None), d), 2.0)


def test_list_subclasses_and_named_tuples_dispatch_every_time(api):
    # A container type is looked into on every call: seeing it once does not make it "plain".
    lib, d, x = api.lib, Rec(), api.t()

    class MyList(list):
        pass

    Pair = namedtuple("Pair", "a b")
    for _ in range(3):
        assert lib.cat(MyList([x, d])) == ("handled", "cat")
        assert lib.cat(Pair(x, d)) == ("handled", "cat")


def test_deeply_nested_containers_do_not_poison_later_calls(api):
    # Arguments nested deeper than the protocol looks (cat([[[d]]])) leave later list arguments dispatching.
    lib, d, x = api.lib, Rec(), api.t()
    for bad in ([[[d]]], ((((d,),),),)):
        try:
            lib.cat(bad)
        except (TypeError, RuntimeError, ValueError):
            pass
    try:
        x[(0, (0, (d,)))]
    except (TypeError, RuntimeError, ValueError, IndexError):
        pass
    assert lib.cat([x, d]) == ("handled", "cat")
    assert lib.cat((x, d)) == ("handled", "cat")
    assert x[0, d] == ("handled", "__getitem__")


def test_dict_values_are_not_looked_into(api):
    # deepcopy's memo (a dict argument of __deepcopy__) may hold a duck object: a plain tensor's
    # deepcopy still does not go to the duck's handler.
    class Box:
        def __init__(self):
            self.v = 1

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "box"

    x = api.t()
    out = copy.deepcopy([Box(), x])
    assert type(out[1]) is api.Tensor and out[1].tolist() == [1.0, 2.0]
    assert api.ov.has_torch_function(({"k": Box()},)) is False


def test_python_scalars_none_strings_slices_ellipsis_never_dispatch(api):
    x = api.lib.arange(6.0).reshape(2, 3)
    assert x[None, ..., 1:].shape == (1, 2, 2)
    assert api.lib.sum(x, dim=(0, 1), keepdim=False).item() == 15.0
    assert api.lib.einsum("ij->j", x).tolist() == [3.0, 5.0, 7.0]
    assert not api.ov.has_torch_function((1, 2.0, True, None, "s", slice(1), Ellipsis, x))


# -- what the handler receives ----------------------------------------------------------------


def test_handler_receives_func_types_tuple_args_tuple_and_kwargs(api):
    d, x = Rec(), api.t()
    api.lib.add(x, d, alpha=2)
    func, types, args, kwargs = last()
    assert func is api.lib.add
    assert types == (Rec,) and isinstance(types, tuple)
    assert args == (x, d) and isinstance(args, tuple)
    assert kwargs == {"alpha": 2}


def test_calls_as_written_agree(api):
    lib, d, x = api.lib, Rec(), api.t()
    cases = [
        (lambda: lib.add(d, 1), lib.add, (d, 1), {}),
        (lambda: lib.add(d, 1, alpha=2), lib.add, (d, 1), {"alpha": 2}),
        (lambda: lib.sum(d), lib.sum, (d,), {}),
        (lambda: lib.sum(d, 0), lib.sum, (d,  0), {}),
        (lambda: lib.sum(d, 0, True), lib.sum, (d, 0, True), {}),
        (lambda: lib.mean(d), lib.mean, (d,), {}),
        (lambda: x.add(d), api.Tensor.add, (x, d), {}),
        (lambda: x.mul(d), api.Tensor.mul, (x, d), {}),
        (lambda: lib.max(d), lib.max, (d,), {}),
        (lambda: lib.max(d, 0), lib.max, (d, 0), {}),
        (lambda: api.F.linear(d, x), api.F.linear, (d, x), {}),
        (lambda: lib.where(x > 0, d, x), lib.where, (None, d, x), {}),
    ]
    for call, func, args, kwargs in cases:
        call()
        got_func, _, got_args, got_kwargs = last()
        assert got_func is func
        assert len(got_args) == len(args)
        assert all(a is b for a, b in zip(got_args, args) if b is not None)
        assert kwargs_of(got_kwargs) == kwargs


def test_keyword_passed_and_defaulted_parameters(api):
    """torch passes a call exactly as written; tensorlib rebuilds it (see dispatch._codegen).

    Either way, ``func(*args, **kwargs)`` in the handler repeats the same call.
    """
    lib, x = api.lib, api.t(1.0, 2.0)

    class Replay:
        seen: list = []

        def __init__(self, v):
            self.v = v

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            Replay.seen.append((args, kwargs_of(kwargs)))
            def unwrap(a):
                if isinstance(a, (list, tuple)):
                    return type(a)(unwrap(e) for e in a)
                return a.v if isinstance(a, Replay) else a

            kw = {k: unwrap(v) for k, v in kwargs_of(kwargs).items()}
            return func(*unwrap(args), **kw)

    r = Replay(x)
    assert lib.add(input=r, other=x).tolist() == [2.0, 4.0]
    assert lib.add(r, other=1.0, alpha=1).tolist() == [2.0, 3.0]
    assert lib.sum(r, dim=0).item() == 3.0
    assert lib.cat((r, x), 0).tolist() == [1.0, 2.0, 1.0, 2.0]
    if api.is_torch:
        assert Replay.seen[0] == ((), {"input": r, "other": x})
        assert Replay.seen[1] == ((r,), {"other": 1.0, "alpha": 1})
        assert Replay.seen[2] == ((r,), {"dim": 0})
        assert Replay.seen[3] == (((r, x), 0), {})
    else:
        # Positional-or-keyword parameters come positionally in signature order; trailing ones
        # and keyword-only ones still at (the very object of) their default are left out.
        assert Replay.seen[0] == ((r, x), {})
        assert Replay.seen[1] == ((r, 1.0), {})
        assert Replay.seen[2] == ((r, 0), {})
        assert Replay.seen[3] == (((r, x),), {})


def test_kwargs_is_none_when_a_builtin_entry_gets_no_keyword_arguments(api):
    seen = []

    class K:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(kwargs)
            return 0

    class KT(api.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(kwargs)
            return 0

    api.lib.neg(K())
    api.lib.zeros(1)[K()]
    kt = api.t().as_subclass(KT)
    _ = kt.shape
    kt.requires_grad = True
    api.lib.neg(K(), out=None)
    # torch passes arguments as they were written (out=None included); tensorlib drops keyword arguments
    # left at their default (see dispatch/_codegen.py), a difference kept for the wrappers' speed
    assert seen == [None, None, None, None, {"out": None} if api.is_torch else None]


# -- handler kinds ------------------------------------------------------------------------------


def test_plain_method_classmethod_and_staticmethod_handlers(api):
    x = api.t()
    p = PlainRec()
    assert api.lib.add(p, x) == "plain" and p.calls[0][0] is api.lib.add
    assert api.lib.add(x, StaticRec()) == "static"
    assert api.lib.add(Rec(), x) == ("handled", "add")


def test_plain_method_handlers_work_and_warn_as_in_torch(api):
    # builtins warn with UserWarning (torch's C++ warns once per process, so only tensorlib is checked there),
    # functions written in Python (handle_torch_function) with DeprecationWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert api.lib.add(PlainRec(), api.lib.ones(1)) == "plain"
        assert api.lib.ones(1) + PlainRec() == "plain"
    if not api.is_torch:
        assert [w.category for w in caught] == [UserWarning, UserWarning]
        assert all("as a plain method is deprecated" in str(w.message) for w in caught)
    with pytest.warns(DeprecationWarning, match="as a plain method is deprecated"):
        assert api.F.dropout(PlainRec()) == "plain"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert api.lib.add(Rec(), api.lib.ones(1)) == ("handled", "add")  # a classmethod handler: no warning


def test_instance_attribute_does_not_make_an_implementer(api):
    class Obj:
        pass

    o = Obj()
    o.__torch_function__ = lambda *a: "instance"
    if api.is_torch:
        # torch looks the attribute up on the object; the spec (like torch's docs) says its type.
        assert api.lib.neg(o) == "instance"
        return
    with pytest.raises(TypeError):
        api.lib.neg(o)
    assert not api.ov.has_torch_function((o,))


def test_disabled_impl_makes_a_type_plain(api):
    class Off(Rec):
        __torch_function__ = api.disabled_impl

    assert not api.ov.has_torch_function((Off(),))
    with pytest.raises(TypeError):
        api.lib.neg(Off())


# -- order of types and handlers ------------------------------------------------------------------


class A:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return [t.__name__ for t in types]


class B(A):
    pass


class C(A):
    pass


class BB(B):
    pass


class D:
    __torch_function__ = A.__torch_function__


ORDER_CASES = [
    ("cat", [A, D, B, BB, C], ["BB", "B", "C", "A", "D"]),
    ("cat", [D, A, C, BB, B], ["D", "C", "BB", "B", "A"]),
    ("cat", [BB, A, B], ["BB", "B", "A"]),
    ("cat", [A, BB, D, B], ["BB", "B", "A", "D"]),
    ("cat", [A, A, B, A], ["B", "A"]),
    ("cat", [C, B, A, BB], ["C", "BB", "B", "A"]),
]


@pytest.mark.parametrize("func,classes,expected", ORDER_CASES)
def test_types_order_subclasses_first_else_left_to_right(api, func, classes, expected):
    objs = [cls() for cls in classes]
    assert getattr(api.lib, func)(objs) == expected


def test_types_order_across_positions_and_keywords(api):
    lib, x = api.lib, api.t()
    a, b, c, d = A(), B(), C(), D()
    assert lib.where(a, d, b) == ["B", "A", "D"]
    assert lib.add(x, a, out=d) == ["A", "D"]
    assert lib.add(other=a, input=d) == ["D", "A"]  # signature order, as torch
    assert lib.clamp(a, max=c, min=b) == ["B", "C", "A"]
    assert api.Tensor.__getitem__(x, (a, d, b)) == ["B", "A", "D"]


def test_one_handler_call_per_type_and_leftmost_object_is_called(api):
    seen = []

    class Tagged:
        def __init__(self, tag):
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(self.tag)
            return NotImplemented

    with pytest.raises(TypeError):
        api.lib.cat([Tagged("first"), Tagged("second")])
    assert seen == ["first"]


# -- declining and errors ----------------------------------------------------------------------


class No:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class NoSub(No):
    pass


def test_not_implemented_falls_through_in_order(api):
    x = api.t()
    assert api.lib.add(No(), Rec()) == ("handled", "add")
    assert last()[1] == (No, Rec)
    assert api.lib.cat([No(), x, Rec(), NoSub()]) == ("handled", "cat")
    assert last()[1] == (NoSub, No, Rec)  # NoSub and No declined first


def test_all_not_implemented_raises_type_error(api):
    with pytest.raises(TypeError) as e:
        api.lib.mul(No(), 3)
    msg = str(e.value)
    if not api.is_torch:
        assert msg == (
            "no implementation found for 'tensorlib.mul' on types that implement __torch_function__: [No]"
        )
    assert "mul" in msg and "No" in msg


def test_error_names_method_operator_and_property_entries():
    import tensorlib

    x = tensorlib.ones(2)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'No'"):
        x + No()  # declined: NotImplemented, then Python's own error
    with pytest.raises(TypeError, match=r"'tensorlib\.Tensor\.sub' on types .*: \[No\]"):
        x.sub(No())
    with pytest.raises(TypeError, match=r"'tensorlib\.Tensor\.add' on types .*: \[NoSub, No\]"):
        x.add(No(), alpha=NoSub())
    with pytest.raises(TypeError, match=r"'tensorlib\.Tensor\.shape\.__get__'"):
        tensorlib.Tensor.shape.__get__(No())
    with pytest.raises(TypeError, match=r"'tensorlib\.nn\.functional\.relu'"):
        tensorlib.nn.functional.relu(No())


def test_handler_exceptions_propagate_unchanged(api):
    class Boom:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            raise ZeroDivisionError("from handler")

    with pytest.raises(ZeroDivisionError, match="from handler"):
        api.lib.sum(Boom())
    with pytest.raises(ZeroDivisionError, match="from handler"):
        api.t() * Boom()
