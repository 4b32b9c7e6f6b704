"""``nn.Module``: the base class of layers and models."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator, NamedTuple

from ... import _dtype
from ..._autograd.grad_mode import no_grad
from ..._autograd.graph import RemovableHandle, add_hook
from ..._dtype import dtype as DType
from ..._tensor import Tensor, _wrap, device as Device, legacy_type_name
from ..parameter import Buffer, Parameter, is_lazy
from ._backward_hooks import BackwardHook


class _IncompatibleKeys(NamedTuple):
    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


def _typename(v: Any) -> str:
    if isinstance(v, Tensor):
        return legacy_type_name(v._data.dtype) if type(v) is Tensor else type(v).__name__
    return type(v).__module__ + "." + type(v).__qualname__ if type(v).__module__ != "builtins" else type(v).__qualname__


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


class Module:
    """Base class for neural network layers: holds parameters, buffers and submodules.

    Assigning a :class:`Parameter` or a Module to an attribute registers it;
    subclasses implement ``forward`` and are called like functions.
    """

    training: bool
    dump_patches = False
    call_super_init = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments: Module.__init__ takes no arguments"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        pre = d.get("_forward_pre_hooks")
        post = d.get("_forward_hooks")
        if not pre and not post and not d.get("_backward_hooks") and not d.get("_backward_pre_hooks"):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        d = self.__dict__
        pre_kw = d.get("_forward_pre_hooks_with_kwargs", ())
        for hid, hook in list(d.get("_forward_pre_hooks", {}).items()):
            if hid in pre_kw:
                r = hook(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{r}."
                        )
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        full = list(d.get("_backward_hooks", {}).values())
        bw_pre = list(d.get("_backward_pre_hooks", {}).values())
        bw = None
        if full or bw_pre:
            bw = BackwardHook(self, full, bw_pre)
            args = bw.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        post_kw = d.get("_forward_hooks_with_kwargs", ())
        for hid, hook in list(d.get("_forward_hooks", {}).items()):
            r = hook(self, args, kwargs, result) if hid in post_kw else hook(self, args, result)
            if r is not None:
                result = r
        if bw is not None:
            result = bw.setup_output_hook(result)
        return result

    # -- registration ------------------------------------------------------------------

    def _check_init(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")

    @staticmethod
    def _check_name(name: Any, kind: str, owner: "Module") -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if not name:
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a None placeholder) under ``name``."""
        self._check_init("parameters")
        self._check_name(name, "parameter", self)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' (tensorlib.nn.Parameter or None required)"
            )
        if param is not None and param._grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter but belongs in ``state_dict`` (if persistent)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (tensorlib Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add a submodule under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name(name, "module", self)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (tensorlib.nn.Parameter or None expected)"
                )
            params[name] = None
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (tensorlib.nn.Module or None expected)")
            modules[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name)

            self.register_buffer(name, _wrap(value._data), value.persistent)
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (tensorlib.Tensor or None expected)")
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None:
                store.pop(name, None)
        np_set = d.get("_non_persistent_buffers_set")
        if np_set is not None:
            np_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                del store[name]
                d.get("_non_persistent_buffers_set", set()).discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(k for k in keys if not k[0].isdigit()))

    # -- traversal -------------------------------------------------------------------------

    def _named_members(self, get: Callable, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator:
        seen: set = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in modules:
            for k, v in get(mod):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (mod_prefix + ("." if mod_prefix else "") + k, v)

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(name, parameter)`` pairs, submodules' with dotted names."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """All parameters (each once), in registration order."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(name, buffer)`` pairs."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """All buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """Direct submodules with their names."""
        seen: set = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator["Module"]:
        """Direct submodules."""
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        """This module and all submodules, depth first, with dotted names."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if remove_duplicate:
                if id(mod) in memo:
                    continue
                memo.add(id(mod))
            yield name, mod
            children = [
                (name + ("." if name else "") + child_name, child)
                for child_name, child in mod._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        """This module and all submodules."""
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target: str) -> "Module":
        """The submodule at dotted path ``target``."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"{mod._get_name()} has no buffer `{name}`")
        return mod._buffers[name]

    # -- modes and bulk operations ---------------------------------------------------------

    def train(self, mode: bool = True) -> "Module":
        """Set training mode (affects Dropout, BatchNorm, ...) on this module and its children."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self) -> "Module":
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset parameter gradients (to None by default, else to zeros)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g._grad_fn is not None:
                        g = g.detach()
                        p.grad = g
                    g._data[...] = 0

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule (children first) and on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """Replace every parameter's and buffer's value by ``fn`` of it (children first): what ``to``, ``double``,
        ``float``, ``half``, ``type`` and ``cpu`` do.

        As torch, a parameter keeps its identity (optimizers holding it see the new value): its data, and its
        gradient's, are replaced in place. A buffer is replaced by ``fn``'s result. Subclasses that hold other
        tensors override this method to convert them too.
        """
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                new = fn(p)
            if new is not p:
                p._data, p._size = new._data, None
            grad = p.grad
            if grad is not None:
                with no_grad():
                    g = fn(grad)
                if g is not grad:
                    grad._data, grad._size = g._data, None
        for name, b in self._buffers.items():
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Convert floating point parameters and buffers (``to(dtype)``; devices other than cpu are refused)."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, DType):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, Device)):
                device = a
        if device is not None:
            Device(device)
        if dtype is None:
            return self._apply(lambda t: t)  # (still through _apply, which subclasses may extend)
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype!r}")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex() else t)

    def double(self) -> "Module":
        """Convert the floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def float(self) -> "Module":
        """Convert the floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def half(self) -> "Module":
        """Convert the floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def cpu(self) -> "Module":
        """Keep every parameter and buffer on the CPU (where they are: tensorlib has no other device)."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> "Module":
        raise RuntimeError("tensorlib is a CPU-only library: CUDA is not available")

    def type(self, dst_type: Any) -> "Module":
        """Convert every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    # -- state dict ------------------------------------------------------------------------

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> "OrderedDict[str, Tensor]":
        """Parameters and persistent buffers by dotted name (detached unless ``keep_vars``)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            r = hook(self, destination, prefix)
            if r is not None:
                destination = r
        return destination

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Add this module's own parameters and persistent buffers to ``destination`` (not its children's)."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """Call ``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        (``hook(module, ...)`` with ``with_module``) before this module's entries are loaded."""
        if with_module:
            module = self

            def bound(*args: Any) -> Any:
                return hook(module, *args)

            return self._add_module_hook("_load_state_dict_pre_hooks", bound, False)
        return self._add_module_hook("_load_state_dict_pre_hooks", hook, False)

    def load_state_dict(self, state_dict: dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy values from ``state_dict`` into parameters and buffers; report missing and unexpected keys.

        Every problem is reported at once, in torch's message; unlike torch, a load that fails copies nothing
        (the module is as before), since every value is checked before the first is copied.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        copies: list = []  # (module, name, current, value), made once everything is checked
        expected = set()
        for mod_name, mod in self.named_modules():
            prefix = mod_name + "." if mod_name else ""
            for hook in list(mod.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
                hook(state_dict, prefix, {}, strict, missing, unexpected, errors)
            local = list(mod._parameters.items()) + [
                (n, b) for n, b in mod._buffers.items() if n not in mod._non_persistent_buffers_set
            ]
            for name, current in local:
                if current is None:
                    continue
                key = prefix + name
                expected.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                if is_lazy(current):  # a placeholder the lazy load hook did not materialize (the value is one too)
                    continue
                if not isinstance(value, Tensor):
                    errors.append(
                        f'While copying the parameter named "{key}", expected tensorlib.Tensor or Tensor-like object '
                        f"from checkpoint but received {type(value)}"
                    )
                    continue
                if value.shape != current.shape:
                    errors.append(
                        f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                        f"the shape in current model is {current.shape}."
                    )
                    continue
                copies.append((mod, name, current, value))
        for key in state_dict:
            if key not in expected:
                unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(self._get_name(), "\n\t".join(errors))
            )
        for mod, name, current, value in copies:
            if assign:
                if isinstance(current, Parameter):
                    setattr(mod, name, Parameter(value.detach(), current.requires_grad))
                else:
                    mod._buffers[name] = value
            else:
                with no_grad():
                    current.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    # -- hooks ----------------------------------------------------------------------------------

    def _add_module_hook(self, store_name: str, hook: Callable, prepend: bool, kwargs_set: str | None = None,
                         with_kwargs: bool = False) -> RemovableHandle:
        d = self.__dict__
        store = d.get(store_name)
        if store is None:
            store = d[store_name] = OrderedDict()
        handle = add_hook(store, hook)
        if prepend:
            store.move_to_end(handle.id, last=False)
        if with_kwargs and kwargs_set is not None:
            d.setdefault(kwargs_set, set()).add(handle.id)
        return handle

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before ``forward``; a non-None return replaces the args.

        With ``with_kwargs`` the hook is ``hook(module, args, kwargs)`` and may return ``(args, kwargs)``.
        """
        return self._add_module_hook("_forward_pre_hooks", hook, prepend, "_forward_pre_hooks_with_kwargs",
                                     with_kwargs)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after ``forward``; a non-None return replaces the output.

        With ``with_kwargs`` the hook is ``hook(module, args, kwargs, output)``.
        """
        return self._add_module_hook("_forward_hooks", hook, prepend, "_forward_hooks_with_kwargs", with_kwargs)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients w.r.t. the outputs are computed;
        a non-None return replaces ``grad_output``."""
        return self._add_module_hook("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients w.r.t. the inputs are computed;
        a non-None return replaces ``grad_input``. ``grad_input`` has one entry per positional argument
        (None for non-tensors and tensors that do not require grad)."""
        return self._add_module_hook("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated spelling: registers ``hook`` as a full backward hook (see :meth:`register_full_backward_hook`)."""
        return self._add_module_hook("_backward_hooks", hook, False)

    # -- printing ----------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """Extra information shown in this module's repr (override in subclasses)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): " + _addindent(repr(m), 2) for name, m in self._modules.items()]
        lines += children
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not children:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

