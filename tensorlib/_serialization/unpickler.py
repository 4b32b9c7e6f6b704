"""The weights-only unpickler: an interpreter of pickle opcodes (protocols 0 to 5) that runs nothing it does not know.

Python's own unpickler calls whatever callable a pickle names. This one resolves every global through
:class:`WeightsOnlyPolicy`, which knows PyTorch's tensor rebuild functions (the loader's checked
versions), tensorlib's classes and dtypes, a few plain Python types (each built by a constructor that
accepts only what the pickle module writes) and what the user allowlisted with ``add_safe_globals``.
Calls (REDUCE), object creation (NEWOBJ) and state setting (BUILD) go through the policy too; items are
appended only to lists and set only on dicts. Malformed data is a ``pickle.UnpicklingError``.
"""

from __future__ import annotations

import codecs
import struct
from collections import Counter, OrderedDict
from pickle import UnpicklingError, decode_long
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..nn.parameter import Parameter
from . import rebuild
from .names import SAFE_CALLS, SAFE_VALUES, python2_name, torch_globals
from .rebuild import Loader

# Modules nothing may be loaded from, even when a user allowlists one of their names.
BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt", "subprocess"})

_unpack_i = struct.Struct("<i").unpack_from
_unpack_I = struct.Struct("<I").unpack_from
_unpack_H = struct.Struct("<H").unpack_from
_unpack_Q = struct.Struct("<Q").unpack_from
_unpack_d = struct.Struct(">d").unpack_from


class UnsupportedGlobal(UnpicklingError):
    """A weights-only load met a global outside the allowlist."""


class MalformedPickle(UnpicklingError):
    """The data is not a well-formed pickle (truncated, unknown opcodes, inconsistent stack or memo)."""


class WeightsOnlyPolicy:
    """What a weights-only pickle may name, call, create and set state on."""

    def __init__(self, loader: Loader, user_safe: dict[tuple[str, str], Any]) -> None:
        self.loader = loader
        self.user_safe = user_safe
        self.user_objects = list(user_safe.values())
        self.loader_calls = set(loader.tensor_rebuilders()) | {
            loader.rebuild_from_type_v2, loader.legacy_rebuild, loader.legacy_rebuild_parameter}

    def find_global(self, module: str, name: str) -> Any:
        module, name = python2_name(module, name)
        full = f"{module}.{name}"
        if module.split(".", 1)[0] in BLOCKED_MODULES:
            raise UnsupportedGlobal(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        obj = torch_globals(self.loader, module, name)
        if obj is not None:
            return obj
        obj = SAFE_VALUES.get((module, name))
        if obj is not None:
            return obj
        if (module, name) in self.user_safe:
            return self.user_safe[(module, name)]
        shown = name if module == "builtins" else full
        raise UnsupportedGlobal(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`tensorlib.serialization.add_safe_globals([{shown}])` or the "
            f"`tensorlib.serialization.safe_globals([{shown}])` context manager to allowlist this global if you "
            "trust this class/function."
        )

    def _is_user_object(self, obj: Any) -> bool:
        return any(obj is u for u in self.user_objects)

    def call(self, func: Any, args: Any) -> Any:
        if not isinstance(args, tuple):
            raise UnpicklingError(f"REDUCE needs a tuple of arguments, got {type(args).__name__}")
        try:
            safe = SAFE_CALLS.get(func)
        except TypeError:  # an unhashable "function"
            safe = None
        if safe is None:
            if func in self.loader_calls or self._is_user_object(func):
                safe = func
            else:
                raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
        try:
            return safe(*args)
        except TypeError as e:
            raise UnpicklingError(f"calling {getattr(func, '__name__', func)!r} with the pickled arguments: {e}") from None

    def newobj(self, cls: Any, args: Any, kwargs: Any) -> Any:
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise UnpicklingError("NEWOBJ needs a tuple of arguments (and a dict of keyword arguments)")
        if cls is Parameter and not kwargs and 1 <= len(args) <= 2:
            data, requires_grad = (args + (True,))[:2]
            return self.loader.rebuild_parameter(data, requires_grad, None)
        if cls in (set, frozenset, OrderedDict, Counter, dict, list) and not args and not kwargs:
            return cls()
        if isinstance(cls, type) and self._is_user_object(cls):
            return cls.__new__(cls, *args, **kwargs)
        raise UnpicklingError(
            f"Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` but got {cls!r}")

    def build(self, inst: Any, state: Any) -> None:
        kind = type(inst)
        if kind is OrderedDict or kind is Counter:
            # a state dict's attributes (``_metadata``)
            if state is None:
                return
            if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
                raise UnpicklingError(f"an OrderedDict's saved attributes must be a dict, got {type(state).__name__}")
            inst.__dict__.update(state)
        elif kind is np.ndarray:
            rebuild.np_array_setstate(inst, state)
        elif isinstance(inst, np.dtype):
            rebuild.np_dtype_setstate(inst, state)
        elif self._is_user_object(kind):
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                inst.__dict__.update(state)
            if slots:
                for k, v in slots.items():
                    setattr(inst, k, v)
        else:
            raise UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but got "
                f"{kind.__name__}" + (" (tensor state is not part of the weights-only format)"
                                      if isinstance(inst, Tensor) else ""))

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is not tuple:
            raise UnpicklingError(f"persistent_load id must be a tuple, but got {type(pid).__name__}")
        return self.loader.persistent_load(pid)


class WeightsUnpickler:
    """Rebuild the object a pickle (held in memory) describes, under a :class:`WeightsOnlyPolicy`."""

    def __init__(self, data: bytes, policy: WeightsOnlyPolicy, *, encoding: str = "ASCII",
                 errors: str = "strict") -> None:
        self.data = data
        self.policy = policy
        self.encoding = encoding
        self.errors = errors

    def _string(self, raw: bytes) -> Any:
        """A protocol 0-2 8-bit string (Python 2's ``str``), decoded as the caller asked."""
        if self.encoding == "bytes":
            return raw
        return raw.decode(self.encoding, self.errors)

    def load(self) -> Any:
        try:
            return self._run()
        except IndexError:
            raise MalformedPickle("malformed pickle data: an opcode found too few items on the stack") from None
        except KeyError as e:
            raise MalformedPickle(f"malformed pickle data: it refers to memo entry {e}, which was never stored") from None
        except (TypeError, ValueError, struct.error, OverflowError, UnicodeDecodeError, AttributeError) as e:
            if isinstance(e, UnpicklingError):
                raise
            raise MalformedPickle(f"malformed pickle data ({type(e).__name__}: {e})") from None

    def _run(self) -> Any:  # noqa: C901 - one flat dispatch is the fastest form in Python
        data = self.data
        end = len(data)
        policy = self.policy
        stack: list[Any] = []
        metastack: list[list[Any]] = []
        memo: dict[int, Any] = {}
        push = stack.append
        pos = 0

        def take(n: int) -> bytes:
            nonlocal pos
            if n < 0 or pos + n > end:
                raise MalformedPickle("pickle data was truncated")
            chunk = data[pos:pos + n]
            pos += n
            return chunk

        def line() -> bytes:
            nonlocal pos
            i = data.find(b"\n", pos)
            if i < 0:
                raise MalformedPickle("pickle data was truncated")
            text = data[pos:i]
            pos = i + 1
            return text

        def pop_mark() -> list[Any]:
            nonlocal stack, push
            if not metastack:
                raise MalformedPickle("could not find MARK")
            items = stack
            stack = metastack.pop()
            push = stack.append
            return items

        while True:
            if pos >= end:
                raise MalformedPickle("pickle data was truncated")
            op = data[pos]
            pos += 1
            if op == 0x71:  # BINPUT
                memo[take(1)[0]] = stack[-1]
            elif op == 0x68:  # BINGET
                push(memo[take(1)[0]])
            elif op == 0x58:  # BINUNICODE
                (n,) = _unpack_I(take(4))
                push(str(take(n), "utf-8", "surrogatepass"))
            elif op == 0x4B:  # BININT1
                push(take(1)[0])
            elif op == 0x28:  # MARK
                metastack.append(stack)
                stack = []
                push = stack.append
            elif op == 0x74:  # TUPLE
                items = pop_mark()
                push(tuple(items))
            elif op == 0x85:  # TUPLE1
                stack[-1] = (stack[-1],)
            elif op == 0x86:  # TUPLE2
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == 0x87:  # TUPLE3
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == 0x29:  # EMPTY_TUPLE
                push(())
            elif op == 0x52:  # REDUCE
                args = stack.pop()
                stack[-1] = policy.call(stack[-1], args)
            elif op == 0x51:  # BINPERSID
                stack[-1] = policy.persistent_load(stack[-1])
            elif op == 0x63:  # GLOBAL
                module = line().decode("utf-8")
                name = line().decode("utf-8")
                push(policy.find_global(module, name))
            elif op == 0x93:  # STACK_GLOBAL
                name = stack.pop()
                module = stack.pop()
                if type(module) is not str or type(name) is not str:
                    raise UnpicklingError("STACK_GLOBAL requires str")
                push(policy.find_global(module, name))
            elif op == 0x89:  # NEWFALSE
                push(False)
            elif op == 0x88:  # NEWTRUE
                push(True)
            elif op == 0x4E:  # NONE
                push(None)
            elif op == 0x72:  # LONG_BINPUT
                memo[_unpack_I(take(4))[0]] = stack[-1]
            elif op == 0x6A:  # LONG_BINGET
                push(memo[_unpack_I(take(4))[0]])
            elif op == 0x94:  # MEMOIZE
                memo[len(memo)] = stack[-1]
            elif op == 0x8C:  # SHORT_BINUNICODE
                n = take(1)[0]
                push(str(take(n), "utf-8", "surrogatepass"))
            elif op == 0x4D:  # BININT2
                push(_unpack_H(take(2))[0])
            elif op == 0x4A:  # BININT
                push(_unpack_i(take(4))[0])
            elif op == 0x47:  # BINFLOAT
                push(_unpack_d(take(8))[0])
            elif op == 0x8A:  # LONG1
                n = take(1)[0]
                push(decode_long(take(n)))
            elif op == 0x8B:  # LONG4
                (n,) = _unpack_i(take(4))
                if n < 0:
                    raise UnpicklingError("LONG pickle has negative byte count")
                push(decode_long(take(n)))
            elif op == 0x7D:  # EMPTY_DICT
                push({})
            elif op == 0x5D:  # EMPTY_LIST
                push([])
            elif op == 0x8F:  # EMPTY_SET
                push(set())
            elif op == 0x73:  # SETITEM
                value = stack.pop()
                key = stack.pop()
                _dict_target(stack[-1], policy)[key] = value
            elif op == 0x75:  # SETITEMS
                items = pop_mark()
                target = _dict_target(stack[-1], policy)
                if len(items) % 2:
                    raise UnpicklingError("SETITEMS needs key/value pairs")
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == 0x61:  # APPEND
                value = stack.pop()
                _list_target(stack[-1], policy).append(value)
            elif op == 0x65:  # APPENDS
                items = pop_mark()
                _list_target(stack[-1], policy).extend(items)
            elif op == 0x90:  # ADDITEMS
                items = pop_mark()
                target = stack[-1]
                if type(target) is not set:
                    raise UnpicklingError(f"Can only add items to sets, but got {type(target).__name__}")
                target.update(items)
            elif op == 0x91:  # FROZENSET
                items = pop_mark()  # before reading ``push``: pop_mark rebinds it
                push(frozenset(items))
            elif op == 0x81:  # NEWOBJ
                args = stack.pop()
                cls = stack.pop()
                push(policy.newobj(cls, args, {}))
            elif op == 0x92:  # NEWOBJ_EX
                kwargs = stack.pop()
                args = stack.pop()
                cls = stack.pop()
                push(policy.newobj(cls, args, kwargs))
            elif op == 0x62:  # BUILD
                state = stack.pop()
                policy.build(stack[-1], state)
            elif op == 0x43:  # SHORT_BINBYTES
                n = take(1)[0]
                push(take(n))
            elif op == 0x42:  # BINBYTES
                (n,) = _unpack_I(take(4))
                push(take(n))
            elif op == 0x8E:  # BINBYTES8
                (n,) = _unpack_Q(take(8))
                push(take(n))
            elif op == 0x96:  # BYTEARRAY8
                (n,) = _unpack_Q(take(8))
                push(bytearray(take(n)))
            elif op == 0x8D:  # BINUNICODE8
                (n,) = _unpack_Q(take(8))
                push(str(take(n), "utf-8", "surrogatepass"))
            elif op == 0x55:  # SHORT_BINSTRING
                n = take(1)[0]
                push(self._string(take(n)))
            elif op == 0x54:  # BINSTRING
                (n,) = _unpack_i(take(4))
                if n < 0:
                    raise UnpicklingError("BINSTRING pickle has negative byte count")
                push(self._string(take(n)))
            elif op == 0x80:  # PROTO
                proto = take(1)[0]
                if proto > 5:
                    raise ValueError(f"unsupported pickle protocol: {proto}")
            elif op == 0x95:  # FRAME: the whole pickle is in memory already
                take(8)
            elif op == 0x2E:  # STOP
                if not stack:
                    raise MalformedPickle("pickle data ended with an empty stack")
                return stack.pop()
            elif op == 0x30:  # POP
                if stack:
                    stack.pop()
                else:
                    pop_mark()
            elif op == 0x31:  # POP_MARK
                pop_mark()
            elif op == 0x32:  # DUP
                push(stack[-1])
            elif op == 0x64:  # DICT
                items = pop_mark()
                if len(items) % 2:
                    raise UnpicklingError("DICT needs key/value pairs")
                push({items[i]: items[i + 1] for i in range(0, len(items), 2)})
            elif op == 0x6C:  # LIST
                items = pop_mark()
                push(items)
            elif op == 0x50:  # PERSID
                push(policy.persistent_load(line().decode("ascii")))
            elif op == 0x49:  # INT
                text = line()
                push(False if text == b"00" else True if text == b"01" else int(text))
            elif op == 0x4C:  # LONG
                text = line()
                push(int(text[:-1] if text.endswith(b"L") else text))
            elif op == 0x46:  # FLOAT
                push(float(line()))
            elif op == 0x53:  # STRING
                text = line().rstrip()
                if len(text) < 2 or text[0] != text[-1] or text[:1] not in (b'"', b"'"):
                    raise UnpicklingError("the STRING opcode argument must be quoted")
                push(self._string(codecs.escape_decode(text[1:-1])[0]))
            elif op == 0x56:  # UNICODE
                push(str(line(), "raw-unicode-escape"))
            elif op == 0x67:  # GET
                push(memo[int(line())])
            elif op == 0x70:  # PUT
                i = int(line())
                if i < 0:
                    raise ValueError("negative PUT argument")
                memo[i] = stack[-1]
            else:
                names = {0x69: "INST", 0x6F: "OBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x97: "NEXT_BUFFER",
                         0x98: "READONLY_BUFFER"}
                what = names.get(op)
                if what is not None:
                    raise UnpicklingError(f"the {what} opcode is not allowed in a weights-only load")
                raise MalformedPickle(f"invalid load key, {chr(op)!r} (0x{op:02x}) at byte {pos - 1}")


def _list_target(target: Any, policy: WeightsOnlyPolicy) -> list:
    if type(target) is list or (isinstance(target, list) and policy._is_user_object(type(target))):
        return target
    raise UnpicklingError(f"Can only append to lists, but got {type(target).__name__}")


def _dict_target(target: Any, policy: WeightsOnlyPolicy) -> dict:
    kind = type(target)
    if kind is dict or kind is OrderedDict or kind is Counter or (
            isinstance(target, dict) and policy._is_user_object(kind)):
        return target
    raise UnpicklingError(f"Can only set items on dicts, but got {kind.__name__}")
