"""Printing tensors the way torch does: shared element width, 4 decimals or scientific, summarised."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _dtype
from ._registry import public
from ._tensor import Tensor


class PrintOptions:
    """The settings :func:`set_printoptions` changes (torch's defaults)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision = 4
        self.threshold: float = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode: bool | None = None


OPTIONS = PrintOptions()


@public()
def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print (same options and profiles as torch: 'default', 'short', 'full')."""
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
        if profile not in presets:
            raise ValueError(f"invalid print profile {profile!r}; expected one of {sorted(presets)}")
        OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems, OPTIONS.linewidth = presets[profile]
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


class _Formatter:
    """One width and one notation for every element of a tensor."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = OPTIONS.precision
        if not self.floating:
            if values.size:
                self.max_width = max(len(str(v)) for v in values.tolist())
            return
        v = values.astype(np.float64)
        finite = v[np.isfinite(v) & (v != 0)]
        if finite.size == 0:
            return
        absv = np.abs(finite)
        lo, hi = absv.min(), absv.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if OPTIONS.sci_mode is None:
            self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or (not self.int_mode and lo < 1.0e-4))
        else:
            self.sci_mode = OPTIONS.sci_mode
        vals = finite.tolist()
        if self.sci_mode:
            self.max_width = max(len(f"{x:.{p}e}") for x in vals)
        elif self.int_mode:
            self.max_width = max(len(f"{x:.0f}") + 1 for x in vals)
        else:
            self.max_width = max(len(f"{x:.{p}f}") for x in vals)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        p = OPTIONS.precision
        if self.floating:
            value = float(value)
            if self.sci_mode:
                s = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                s = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    s += "."
            else:
                s = f"{value:.{p}f}"
        else:
            s = str(value)
        return " " * (self.max_width - len(s)) + s


class _ComplexFormatter:
    """Real and imaginary parts each get their own formatter."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)

    def width(self) -> int:
        # ", " is added by the caller; the imaginary part carries a "j"
        return self.real.width() + self.imag.width() + 1

    def format(self, value: Any) -> str:
        re = self.real.format(value.real)
        im = (self.imag.format(value.imag) + "j").lstrip()
        if im[0] in "+-":
            return re + im
        return re + "+" + im


def _summarized(a: np.ndarray, edge: int) -> np.ndarray:
    """The elements that will be printed when summarising (edges of every dim)."""
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        if a.shape[0] > 2 * edge:
            return np.concatenate([a[:edge], a[a.shape[0] - edge :]])
        return a
    if edge == 0:
        return a[(slice(0, 0),) * a.ndim]
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[a.shape[0] - edge :]])
    return np.stack([_summarized(row, edge) for row in a]) if len(a) else a


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    edge = OPTIONS.edgeitems
    element_length = fmt.width() + 2
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / element_length)))
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = [fmt.format(v) for v in a[:edge].tolist()] + [" ..."] + [fmt.format(v) for v in a[-edge:].tolist()]
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(a: np.ndarray, indent: int, summarize: bool, fmt: Any) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    edge = OPTIONS.edgeitems
    if summarize and a.shape[0] > 2 * edge:
        parts = (
            [_tensor_str(a[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [_tensor_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0] - edge, a.shape[0])]
        )
    else:
        parts = [_tensor_str(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_data(a: np.ndarray, indent: int) -> str:
    """The bracketed element text of ``a`` (without prefix or suffixes)."""
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    summarize = a.size > OPTIONS.threshold
    shown = _summarized(a, OPTIONS.edgeitems) if summarize else a
    flat = shown.reshape(-1)
    fmt = _ComplexFormatter(flat) if a.dtype.kind == "c" else _Formatter(flat)
    return _tensor_str(a, indent, summarize, fmt)


def _join_suffixes(body: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix...)``; if they do not fit on the last line, they all move to a new one."""
    if not suffixes:
        return body + ")"
    joined = ", ".join(suffixes)
    last_line = body[body.rfind("\n") + 1 :]
    if len(last_line) + 2 + len(joined) + 2 > OPTIONS.linewidth:
        return body + ",\n" + " " * indent + joined + ")"
    return body + ", " + joined + ")"


def tensor_repr(t: Any, prefix: str | None = None) -> str:
    """``tensor([...], dtype=..., grad_fn=<...>)`` as torch prints it."""
    a = t._data
    if prefix is None:
        prefix = "tensor(" if type(t) is Tensor else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    d = _dtype.FROM_NP[a.dtype]
    defaults = (_dtype.DEFAULT.float, _dtype.DEFAULT.complex, _dtype.int64, _dtype.bool)
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        body = prefix + "[]"
        # no elements to tell an int64 or bool tensor by: only the default float dtype goes unnamed
        if d is not _dtype.DEFAULT.float:
            suffixes.append(f"dtype={d!r}")
    else:
        body = prefix + format_data(a, indent)
        if not OPTIONS.edgeitems:  # nothing of the shape is visible: print it
            suffixes.append(f"size={tuple(a.shape)}")
        if d not in defaults:
            suffixes.append(f"dtype={d!r}")
    fn = t._grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _join_suffixes(body, suffixes, indent)
