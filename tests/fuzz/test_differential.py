"""The fuzzer's calls made on torch too: tensorlib raises whenever torch raises (the same kind of exception) and
succeeds whenever torch succeeds.

Every overridable function and Tensor method with a torch counterpart of the same name, and every operator,
gets a few random calls (``tests/fuzz/calls.py``; in CI the same calls each run), each made in both libraries
(``tests/fuzz/differential.py``). A disagreement is explained, and counted as such, when torch's error is a
limitation of its kernels (a dtype it has no kernel for), one of torch's own internal errors (an
AttributeError where tensorlib names the bad argument), or when a call with several bad arguments meets
torch's type check of all arguments in one library and a check of a value in the other. Any other
disagreement fails the test, unless the callee is in ``KNOWN`` with the reason tensorlib differs.

The figures (calls compared, agreement in %) are printed at the end of the session. A longer run::

    TENSORLIB_FUZZ_EXAMPLES=100 python -m pytest tests/fuzz/test_differential.py -q
"""

from __future__ import annotations

import pytest

import tensorlib
from tests.fuzz import calls as C
from tests.fuzz.differential import compare
from tests.fuzz.runner import DIFFERENTIAL_CI_EXAMPLES, EXAMPLES, STATS, fuzz

torch = pytest.importorskip("torch")

# callees whose CI calls still disagree with torch, and why (take a name off when it agrees); the common reasons:
FLAG = "takes any value as a bool flag; torch's parser wants a bool"
NONE = 'takes None for an argument torch requires (as the default)'
SIGNATURE = "the method's signature takes a call torch's signature refuses"
FORM = 'takes a list (or another form) where torch takes separate tensors'
HUGE = 'checks another argument before the range of an int beyond 64 bits'
OUT = 'casts a result into an out= tensor of another dtype'
KERNEL = "reports a dtype without a kernel before torch's check of another argument (or lacks the kernel)"
TYPE = "takes an argument of a type torch's parser refuses"
ORDER = 'checks its arguments in another order than torch (both raise)'

KNOWN: dict[str, str] = {
    'Tensor.__array__': SIGNATURE,
    'Tensor.__dlpack__': 'ignores `stream` (CPU only) where torch checks its type',
    'Tensor.__repr__': "ignores torch's private `tensor_contents` argument",
    'Tensor.__setitem__': ORDER,
    'Tensor.__setstate__': ORDER,
    'Tensor.addbmm': ORDER,
    'Tensor.adjoint': ORDER,
    'Tensor.all': FLAG,
    'Tensor.bernoulli': NONE,
    'Tensor.bool': SIGNATURE,
    'Tensor.byte': SIGNATURE,
    'Tensor.cdouble': SIGNATURE,
    'Tensor.cfloat': SIGNATURE,
    'Tensor.char': SIGNATURE,
    'Tensor.copy_': 'wants a Tensor as src; torch also takes a Python number',
    'Tensor.cpu': SIGNATURE,
    'Tensor.cummax': 'checks dims of an empty input that torch does not look at',
    'Tensor.double': SIGNATURE,
    'Tensor.float': SIGNATURE,
    'Tensor.half': SIGNATURE,
    'Tensor.index': FORM,
    'Tensor.index_add': ORDER,
    'Tensor.index_fill': ORDER,
    'Tensor.int': SIGNATURE,
    'Tensor.kthvalue': KERNEL,
    'Tensor.logcumsumexp': HUGE,
    'Tensor.logsumexp': NONE,
    'Tensor.long': SIGNATURE,
    'Tensor.matrix_power': HUGE,
    'Tensor.max': NONE + "; " + FLAG,
    'Tensor.min': HUGE + "; " + NONE,
    'Tensor.nanquantile': HUGE,
    'Tensor.nansum': FLAG,
    'Tensor.narrow': ORDER,
    'Tensor.new_empty': SIGNATURE,
    'Tensor.new_ones': SIGNATURE,
    'Tensor.new_zeros': SIGNATURE,
    'Tensor.nonzero': FLAG,
    'Tensor.numpy': FLAG,
    'Tensor.ormqr': KERNEL,
    'Tensor.prod': NONE,
    'Tensor.roll': HUGE,
    'Tensor.set_': NONE,
    'Tensor.short': SIGNATURE,
    'Tensor.sort': FLAG,
    'Tensor.squeeze': NONE,
    'Tensor.squeeze_': NONE,
    'Tensor.sum': FLAG,
    'Tensor.sum_to_size': SIGNATURE,
    'Tensor.topk': TYPE,
    'Tensor.type': FLAG,
    'Tensor.unflatten': ORDER,
    'Tensor.uniform_': SIGNATURE,
    'Tensor.unique': FLAG,
    'Tensor.unique_consecutive': FLAG,
    'tensorlib.addbmm': ORDER,
    'tensorlib.all': OUT,
    'tensorlib.argsort': FLAG,
    'tensorlib.autograd.backward': NONE,
    'tensorlib.autograd.grad': NONE,
    'tensorlib.baddbmm': ORDER,
    'tensorlib.binary_cross_entropy_with_logits': ORDER,
    'tensorlib.broadcast_tensors': FORM,
    'tensorlib.bucketize': KERNEL,
    'tensorlib.chain_matmul': FORM,
    'tensorlib.cosine_similarity': "computes the norm in the input's dtype and refuses integers, where torch promotes",
    'tensorlib.detach_': 'detaches a view in place, which torch refuses',
    'tensorlib.dropout_': FLAG,
    'tensorlib.empty_like': FLAG,
    'tensorlib.frobenius_norm': 'wants two dims where torch also takes one',
    'tensorlib.histogramdd': FORM,
    'tensorlib.index_add': HUGE,
    'tensorlib.index_fill': ORDER,
    'tensorlib.linalg.cholesky_ex': FORM,
    'tensorlib.linalg.lu_factor_ex': FLAG,
    'tensorlib.linalg.matrix_rank': 'checks the dtype of an empty input that torch does not look at',
    'tensorlib.linalg.norm': FLAG,
    'tensorlib.max': ORDER,
    'tensorlib.max_pool1d': HUGE,
    'tensorlib.min': FLAG,
    'tensorlib.multiply': "refuses an out= that is not a tensor, which torch's parser lets through",
    'tensorlib.nan_to_num_': TYPE,
    'tensorlib.narrow': HUGE + "; " + ORDER,
    'tensorlib.nn.functional.adaptive_avg_pool2d': ORDER,
    'tensorlib.nn.functional.adaptive_avg_pool3d': ORDER,
    'tensorlib.nn.functional.adaptive_max_pool2d': ORDER,
    'tensorlib.nn.functional.adaptive_max_pool3d_with_indices': ORDER,
    'tensorlib.nn.functional.binary_cross_entropy_with_logits': KERNEL,
    'tensorlib.nn.functional.conv_transpose2d': HUGE,
    'tensorlib.nn.functional.dropout': 'drops out an integer tensor, which torch cannot cast back',
    'tensorlib.nn.functional.dropout2d': FLAG,
    'tensorlib.nn.functional.embedding': ORDER,
    'tensorlib.nn.functional.fractional_max_pool2d': ORDER,
    'tensorlib.nn.functional.fractional_max_pool2d_with_indices': ORDER,
    'tensorlib.nn.functional.hardtanh_': 'computes in floats and refuses the cast back into integers',
    'tensorlib.nn.functional.instance_norm': KERNEL,
    'tensorlib.nn.functional.local_response_norm': KERNEL,
    'tensorlib.nn.functional.lp_pool2d': ORDER,
    'tensorlib.nn.functional.max_pool3d': HUGE,
    'tensorlib.nn.functional.max_pool3d_with_indices': HUGE,
    'tensorlib.nn.functional.max_unpool2d': ORDER,
    'tensorlib.nn.functional.pixel_unshuffle': HUGE,
    'tensorlib.nn.functional.poisson_nll_loss': FLAG,
    'tensorlib.nn.functional.soft_margin_loss': ORDER + "; " + 'refuses a target of another size (torch broadcasts)',
    'tensorlib.nn.functional.softmin': KERNEL,
    'tensorlib.nn.utils.clip_grad_value_': 'skips a tensor without .grad where torch fails inside',
    'tensorlib.nn.utils.rnn.pack_sequence': ORDER,
    'tensorlib.nn.utils.rnn.pad_sequence': ORDER,
    'tensorlib.ones_like': FLAG,
    'tensorlib.prod': FLAG,
    'tensorlib.repeat_interleave': 'takes a one-element tuple as dim',
    'tensorlib.softmax': KERNEL,
    'tensorlib.special.log_softmax': KERNEL,
    'tensorlib.special.logit': TYPE,
    'tensorlib.special.softmax': KERNEL,
    'tensorlib.std_mean': ORDER,
    'tensorlib.sum': FLAG,
    'tensorlib.take': ORDER,
    'tensorlib.transpose': HUGE,
    'tensorlib.tril': OUT,
    'tensorlib.unique_consecutive': FLAG,
    'tensorlib.unsqueeze_copy': OUT,
    'tensorlib.var_mean': ORDER,
}

CALLEES = [(n, f, "method" if n.startswith("Tensor.") else "function") for n, f in C.functions()
           if C.torch_counterpart(n, torch) is not None] + C.operators()


def _cases():
    for name, func, form in CALLEES:
        marks = []
        if name in KNOWN:
            marks = [pytest.mark.xfail(strict=EXAMPLES is None, reason=KNOWN[name])]
        yield pytest.param(name, func, form, id=name, marks=marks)


@pytest.mark.parametrize(("name", "func", "form"), list(_cases()))
def test_same_outcome_as_torch(name, func, form):
    differ = []

    def one(draw):
        if form in ("method", "function"):
            args, kwargs = C.build_call(draw, func, method=form == "method")
        elif form == "unary":
            args, kwargs = (draw(C.tensors()),), {}
        else:
            args, kwargs = (draw(C.tensors()), C.operand(draw)), {}
        tensorlib.set_default_dtype(tensorlib.float32)
        torch.set_default_dtype(torch.float32)
        verdict, what = compare(name, func, args, kwargs, torch)
        STATS.compared += 1
        STATS.verdicts[verdict] = STATS.verdicts.get(verdict, 0) + 1
        if verdict == "agree":
            STATS.agreed += 1
        elif verdict == "differ":
            STATS.disagreements.setdefault(name, []).append(what)
            differ.append(what)
        else:
            STATS.known += 1

    fuzz(one, DIFFERENTIAL_CI_EXAMPLES, name)
    assert not differ, differ[0]


def test_known_names_are_callees():
    assert set(KNOWN) <= {name for name, _, _ in CALLEES}


def test_the_comparison_sees_agreement_and_disagreement():
    spec = C.TensorSpec((2,), "float32", 0)
    assert compare("Tensor.sum", None, (spec, 5), {}, torch)[0] == "agree"  # IndexError in both
    assert compare("Tensor.sum", None, (spec, 0), {}, torch)[0] == "agree"  # a result in both
    # tensorlib takes any value as keepdim, torch's parser wants a bool: a disagreement
    verdict, what = compare("Tensor.all", None, (spec,), {"keepdim": 3}, torch)
    assert verdict == "differ" and "tensorlib ok, torch TypeError" in what
