"""Matrix products and the functions of a model's forward pass on DaskTensors chunked along the batch dimension.

``matmul`` contracts chunk against chunk (partial products summed in a tree when the contracted dimension is
chunked). The functions of ``nn.functional`` that treat each sample on its own (``linear``, ``conv2d``,
``layer_norm``, ``embedding``, pooling, ...) run once per batch chunk, every other dimension of the chunk
gathered; their weights are one graph key each (:func:`~tensorlib.dask._tensor.constant`), so a model's weights
travel once per graph, not once per chunk. Losses with ``reduction='sum'`` or ``'mean'`` sum per-chunk sums in a
tree and divide by what tensorlib divides by (the number of elements, or for ``cross_entropy``/``nll_loss`` the
total class weight of the targets that are not ignored).
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import tensorlib
import tensorlib.nn.functional as F

from ._reductions import along_dim, sum_
from ._tensor import (
    HANDLED,
    checked_evaluate,
    DaskTensor,
    Kernel,
    Slot,
    Template,
    blockwise,
    dask_array,
    evaluate,
    ghost,
    letters,
    map_structure,
    standin,
)

T = tensorlib.Tensor


# -- matmul --------------------------------------------------------------------------------------------------------


def _product_standin(x: Any, left: bool) -> Any:
    if not isinstance(x, (DaskTensor, tensorlib.Tensor)) or x.ndim == 0:
        return x
    if x.ndim == 1:
        return tensorlib.zeros(x.shape[0], dtype=x.dtype)
    k = x.shape[-1] if left else x.shape[-2]
    return tensorlib.zeros((1,) * (x.ndim - 2) + ((1, k) if left else (k, 1)), dtype=x.dtype)


def partial_product(a: tensorlib.Tensor, b: tensorlib.Tensor) -> tensorlib.Tensor:
    """One chunk pair's share of a product whose contracted dimension is chunked (a new axis to sum over)."""
    return tensorlib.matmul(a, b).unsqueeze(-3)


def matmul(func: Callable, a: Any, b: Any) -> DaskTensor:
    """``func(a, b)`` for ``matmul``-like functions (``mm``, ``bmm``, ``mv``, ``dot``), tensorlib's rules."""
    result = checked_evaluate(func, ((_product_standin(a, True), _product_standin(b, False)), {}),
                              ((ghost(a), ghost(b)), {}))
    batch = tuple(tensorlib.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    left, right = dask_array(a), dask_array(b)
    if a.ndim == 1:
        left = left[None, :]
    if b.ndim == 1:
        right = right[:, None]
    nb = len(batch)
    bl = letters("b", nb)
    pairs = [(left, bl[nb - (left.ndim - 2):] + ("i", "j")), (right, bl[nb - (right.ndim - 2):] + ("j", "k"))]
    if left.numblocks[-1] == 1 and right.numblocks[-2] == 1:
        out = DaskTensor(blockwise(Kernel(tensorlib.matmul, (Slot(0), Slot(1))), bl + ("i", "k"), pairs,
                                   result.dtype))
    else:
        partial = blockwise(Kernel(partial_product, (Slot(0), Slot(1))), bl + ("j", "i", "k"), pairs, result.dtype,
                            adjust_chunks={"j": 1})
        out = sum_(DaskTensor(partial), nb)
    shape = batch + ((a.shape[-2],) if a.ndim > 1 else ()) + ((b.shape[-1],) if b.ndim > 1 else ())
    return out if tuple(out.shape) == shape else DaskTensor(out._array.reshape(shape))


@HANDLED.implements(tensorlib.matmul)
def matmul_(input: Any, other: Any, *, out: Any = None) -> Any:
    _no_out("tensorlib.matmul", out)
    return matmul(tensorlib.matmul, input, other)


@HANDLED.implements(T.matmul)
def matmul_method(self: Any, other: Any) -> Any:
    return matmul(T.matmul, self, other)


@HANDLED.implements(T.__rmatmul__)
def rmatmul(self: Any, other: Any) -> Any:
    return matmul(tensorlib.matmul, other, self)


@HANDLED.implements(tensorlib.mm)
def mm(input: Any, mat2: Any, *, out: Any = None) -> Any:
    _no_out("tensorlib.mm", out)
    return matmul(tensorlib.mm, input, mat2)


@HANDLED.implements(T.mm)
def mm_method(self: Any, mat2: Any) -> Any:
    return matmul(T.mm, self, mat2)


@HANDLED.implements(tensorlib.bmm)
def bmm(input: Any, mat2: Any, *, out: Any = None) -> Any:
    _no_out("tensorlib.bmm", out)
    return matmul(tensorlib.bmm, input, mat2)


@HANDLED.implements(T.bmm)
def bmm_method(self: Any, mat2: Any) -> Any:
    return matmul(T.bmm, self, mat2)


@HANDLED.implements(tensorlib.mv)
def mv(input: Any, vec: Any, *, out: Any = None) -> Any:
    _no_out("tensorlib.mv", out)
    return matmul(tensorlib.mv, input, vec)


@HANDLED.implements(tensorlib.dot)
def dot(input: Any, tensor: Any, *, out: Any = None) -> Any:
    _no_out("tensorlib.dot", out)
    return matmul(tensorlib.dot, input, tensor)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported on a DaskTensor")


# -- functions applied to each batch chunk -----------------------------------------------------------------------------


def _is_batch_aligned(value: Any, n: int) -> bool:
    return isinstance(value, (DaskTensor, tensorlib.Tensor)) and value.ndim >= 1 and value.shape[0] == n


def _batch_standin(value: Any) -> Any:
    return tensorlib.zeros((1,) + tuple(value.shape[1:]), dtype=value.dtype)


def _constant_standin(value: Any) -> Any:
    return tensorlib.zeros(tuple(value.shape), dtype=value.dtype) if isinstance(value, DaskTensor) else value


def per_batch(func: Callable, bound: inspect.BoundArguments, batch_params: tuple[str, ...],
              sum_chunks: bool = False) -> Any:
    """``func`` once per chunk of dimension 0, the other dimensions gathered: the arguments named in
    ``batch_params`` whose dimension 0 has the input's size are cut along it, every other tensor is passed whole.

    With ``sum_chunks``, ``func`` returns a 0-d sum per chunk and the result is their sum.
    """
    aligned = _aligned(bound, batch_params)
    result = checked_evaluate(func, _small_call(bound, aligned), map_structure(ghost, bound.args, bound.kwargs))
    template = Template(bound.args, bound.kwargs)
    pairs = []
    for i, value in enumerate(template.operands):
        array = dask_array(value)
        name = next((k for k, v in bound.arguments.items() if v is value), None)
        if name in aligned:
            pairs.append((array, ("n",) + letters(f"a{i}_", array.ndim - 1)))
        else:
            pairs.append((array, letters(f"a{i}_", array.ndim)))
    if sum_chunks:
        kernel = template.kernel(func, shape=(1,))
        partial = blockwise(kernel, ("n",), pairs, result.dtype, adjust_chunks={"n": 1})
        return sum_(DaskTensor(partial))
    outputs = result if isinstance(result, tuple) else (result,)
    built = []
    for j, r in enumerate(outputs):
        if r.ndim == 0 or r.shape[0] != 1:
            raise NotImplementedError(f"{func.__qualname__}: this call does not act on each sample on its own")
        out_ind = ("n",) + letters("o", r.ndim - 1)
        new_axes = {ix: int(size) for ix, size in zip(out_ind[1:], r.shape[1:])}
        kernel = template.kernel(func, pick=j if isinstance(result, tuple) else None)
        built.append(DaskTensor(blockwise(kernel, out_ind, pairs, r.dtype, new_axes=new_axes)))
    return type(result)(built) if isinstance(result, tuple) else built[0]


def _aligned(bound: inspect.BoundArguments, batch_params: tuple[str, ...]) -> set[str]:
    """The arguments cut along the batch: those of ``batch_params`` whose dimension 0 has the input's size."""
    n = bound.arguments[batch_params[0]].shape[0]
    return {name for name in batch_params if _is_batch_aligned(bound.arguments.get(name), n)}


def _small_call(bound: inspect.BoundArguments, aligned: set[str]) -> tuple[tuple, dict]:
    """The call with a batch of one zero sample (zeros are valid class indices and embedding rows too)."""
    small = {name: _batch_standin(v) if name in aligned else _constant_standin(v) for name, v in bound.arguments.items()}
    call = bound.signature.bind(**small)
    return call.args, call.kwargs


def whole(func: Callable, bound: inspect.BoundArguments) -> Any:
    """``func`` on the whole tensors as one chunk (inputs without a batch dimension: small by nature)."""
    result = evaluate(func, *map_structure(ghost, bound.args, bound.kwargs))
    template = Template(bound.args, bound.kwargs)
    pairs = [(a.rechunk(-1), letters(f"a{i}_", a.ndim)) for i, a in enumerate(template.arrays())]
    outputs = result if isinstance(result, tuple) else (result,)
    built = []
    for j, r in enumerate(outputs):
        out_ind = letters("o", r.ndim)
        kernel = template.kernel(func, pick=j if isinstance(result, tuple) else None)
        built.append(DaskTensor(blockwise(kernel, out_ind, pairs, r.dtype,
                                          new_axes={ix: int(s) for ix, s in zip(out_ind, r.shape)})))
    return type(result)(built) if isinstance(result, tuple) else built[0]


# (function, the parameters cut along the batch, the smallest number of dimensions of a batched input)
_PER_SAMPLE: list[tuple[Callable, tuple[str, ...], int]] = [
    (F.linear, ("input",), 2),
    (F.bilinear, ("input1", "input2"), 2),
    (F.conv1d, ("input",), 3), (F.conv2d, ("input",), 4), (F.conv3d, ("input",), 5),
    (F.conv_transpose1d, ("input",), 3), (F.conv_transpose2d, ("input",), 4), (F.conv_transpose3d, ("input",), 5),
    (F.max_pool1d, ("input",), 3), (F.max_pool2d, ("input",), 4), (F.max_pool3d, ("input",), 5),
    (F.avg_pool1d, ("input",), 3), (F.avg_pool2d, ("input",), 4), (F.avg_pool3d, ("input",), 5),
    (F.adaptive_avg_pool1d, ("input",), 3), (F.adaptive_avg_pool2d, ("input",), 4),
    (F.adaptive_avg_pool3d, ("input",), 5),
    (F.adaptive_max_pool1d, ("input",), 3), (F.adaptive_max_pool2d, ("input",), 4),
    (F.adaptive_max_pool3d, ("input",), 5),
    (F.lp_pool1d, ("input",), 3), (F.lp_pool2d, ("input",), 4),
    (F.group_norm, ("input",), 2), (F.local_response_norm, ("input",), 3),
    (F.interpolate, ("input",), 3), (F.pixel_shuffle, ("input",), 4), (F.pixel_unshuffle, ("input",), 4),
    (F.channel_shuffle, ("input",), 3), (F.prelu, ("input",), 2),
    (F.embedding, ("input",), 1), (F.one_hot, ("tensor",), 1),
    (F.pad, ("input",), 2),
    (F.normalize, ("input",), 2), (F.glu, ("input",), 2),
    (F.cosine_similarity, ("x1", "x2"), 2), (F.pairwise_distance, ("x1", "x2"), 2),
    (F.layer_norm, ("input",), 2), (F.rms_norm, ("input",), 2),
    (F.batch_norm, ("input",), 2), (F.instance_norm, ("input",), 3),
]
# torch's top-level forms of the same functions (``tensorlib.conv2d``), where their parameters are the same.
_PER_SAMPLE += [
    (getattr(tensorlib, f.__name__), params, n) for f, params, n in _PER_SAMPLE
    if f.__name__ not in ("batch_norm", "instance_norm", "embedding", "one_hot", "interpolate", "pad", "normalize",
                          "glu", "lp_pool1d", "lp_pool2d", "local_response_norm", "max_pool1d", "max_pool2d",
                          "max_pool3d", "adaptive_max_pool1d")
    and callable(getattr(tensorlib, f.__name__, None))
] + [(tensorlib.max_pool1d, ("input",), 3), (tensorlib.max_pool2d, ("input",), 4), (tensorlib.max_pool3d, ("input",), 5)]


def _batched(func: Callable, bound: inspect.BoundArguments, min_ndim: int) -> bool:
    """Whether dimension 0 of the input is a batch dimension each sample of which ``func`` treats on its own."""
    a = bound.arguments
    x: Any = a.get("input", a.get("tensor", a.get("x1", a.get("input1"))))
    if x.ndim < min_ndim:
        return False
    name = func.__name__
    if name in ("layer_norm", "rms_norm"):
        shape = a["normalized_shape"]
        return x.ndim > (1 if isinstance(shape, int) else len(shape))
    if name in ("normalize", "glu", "cosine_similarity"):
        return int(a.get("dim", 1 if name != "glu" else -1)) % x.ndim != 0
    if name == "pad":
        return len(a["pad"]) <= 2 * (x.ndim - 1)
    return True


def _refuse(func: Callable, bound: inspect.BoundArguments) -> None:
    """Calls whose result depends on more than one chunk, or that change their arguments in place."""
    a = bound.arguments
    name = f"tensorlib.nn.functional.{func.__name__}"
    if func is F.batch_norm and a.get("training", False):
        raise NotImplementedError(f"{name}: batch statistics over a DaskTensor are not supported (call model.eval())")
    if func is F.instance_norm and a.get("use_input_stats", True) and a.get("running_mean") is not None:
        raise NotImplementedError(f"{name}: updating running statistics is not supported on a DaskTensor")
    if func is F.embedding and a.get("max_norm") is not None:
        raise NotImplementedError(f"{name}: max_norm (renormalizes the weight in place) is not supported")
    if func is F.one_hot and a.get("num_classes", -1) == -1:
        raise NotImplementedError(f"{name}: num_classes=-1 (read from the data) is not supported; pass num_classes")


def _per_sample_impl(func: Callable, batch_params: tuple[str, ...], min_ndim: int) -> Callable:
    sig = inspect.signature(func)

    def impl(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        if bound.arguments.get("out") is not None:
            raise NotImplementedError(f"tensorlib.nn.functional.{func.__name__}: out= is not supported on a DaskTensor")
        _refuse(func, bound)
        if not isinstance(bound.arguments.get(batch_params[0]), (DaskTensor, tensorlib.Tensor)):
            evaluate(func, *map_structure(standin, args, kwargs))  # tensorlib's TypeError for a non-tensor input
        if not _batched(func, bound, min_ndim):
            if func in (F.normalize, F.glu) and bound.arguments[batch_params[0]].ndim >= 1:
                x = bound.arguments[batch_params[0]]
                result = evaluate(func, *map_structure(standin, args, kwargs))
                return along_dim(func, args, kwargs, x, 0, result.dtype)
            return whole(func, bound)
        return per_batch(func, bound, batch_params)

    impl.__name__ = impl.__qualname__ = f"per_sample_{func.__name__}"
    return impl


for _func, _params, _min in _PER_SAMPLE:
    HANDLED.implements(_func)(_per_sample_impl(_func, _params, _min))


# -- losses ------------------------------------------------------------------------------------------------------------


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def class_weight_total(target: tensorlib.Tensor, weight: tensorlib.Tensor | None, ignore_index: int,
                       dtype: tensorlib.dtype) -> tensorlib.Tensor:
    """What ``cross_entropy``/``nll_loss`` divide a mean by, for one chunk of class-index targets: the total
    weight of the targets that are not ``ignore_index`` (their number without class weights)."""
    valid = target != ignore_index
    if weight is None:
        return valid.sum().to(dtype)
    picked = weight[tensorlib.where(valid, target, tensorlib.zeros_like(target))]
    return (picked * valid.to(weight.dtype)).sum().to(dtype)


# (loss, the parameters cut along the batch)
_LOSSES: list[tuple[Callable, tuple[str, ...]]] = [
    (F.cross_entropy, ("input", "target")), (F.nll_loss, ("input", "target")),
    (F.mse_loss, ("input", "target", "weight")), (F.l1_loss, ("input", "target", "weight")),
    (F.smooth_l1_loss, ("input", "target")), (F.huber_loss, ("input", "target", "weight")),
    (F.binary_cross_entropy, ("input", "target", "weight")),
    (F.binary_cross_entropy_with_logits, ("input", "target", "weight")),
    (F.kl_div, ("input", "target")), (F.soft_margin_loss, ("input", "target")),
]


def _loss_impl(func: Callable, batch_params: tuple[str, ...]) -> Callable:
    sig = inspect.signature(func)

    def impl(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        a = bound.arguments
        x, target = a["input"], a["target"]
        reduction = _legacy_reduction(a.get("size_average"), a.get("reduce"), a.get("reduction", "mean"))
        if x.ndim == 0 or (func in (F.cross_entropy, F.nll_loss) and x.ndim == 1):
            return whole(func, bound)  # one sample: no batch dimension
        if reduction == "none" or reduction not in ("mean", "sum", "batchmean"):
            return per_batch(func, bound, batch_params)
        summed = dict(a, reduction="sum", size_average=None, reduce=None)
        for legacy in ("size_average", "reduce"):
            if legacy not in sig.parameters:
                summed.pop(legacy)
        sum_bound = sig.bind(**summed)
        result = evaluate(func, *_small_call(bound, _aligned(bound, batch_params)))  # dtype, warnings, errors
        total = per_batch(func, sum_bound, batch_params, sum_chunks=True)
        if reduction == "sum":
            return total
        if reduction == "batchmean":
            return total / x.shape[0]
        return tensorlib.div(total, _denominator(func, a, x, target, result.dtype))

    impl.__name__ = impl.__qualname__ = f"loss_{func.__name__}"
    return impl


def _denominator(func: Callable, a: dict, x: Any, target: Any, dtype: tensorlib.dtype) -> Any:
    if func in (F.cross_entropy, F.nll_loss) and tuple(target.shape) != tuple(x.shape):  # class indices
        weight, ignore_index = a.get("weight"), a.get("ignore_index", -100)
        call = Template((target, weight, ignore_index, dtype), {})
        pairs = [(arr, ("n",) + letters(f"t{i}_", arr.ndim - 1) if i == 0 else letters(f"w{i}_", arr.ndim))
                 for i, arr in enumerate(call.arrays())]
        partial = blockwise(call.kernel(class_weight_total, shape=(1,)), ("n",), pairs, dtype,
                            adjust_chunks={"n": 1})
        return sum_(DaskTensor(partial))
    if func in (F.mse_loss, F.l1_loss) and a.get("weight") is not None:  # their weighted mean: by the total weight
        weight = a["weight"]
        return sum_(weight) if isinstance(weight, DaskTensor) else tensorlib.sum(weight)
    if func is F.cross_entropy:  # class probabilities: the mean over every position but the class dimension
        return math.prod(x.shape) // x.shape[1]
    return math.prod(tensorlib.broadcast_shapes(x.shape, target.shape))


for _func, _params in _LOSSES:
    HANDLED.implements(_func)(_loss_impl(_func, _params))
