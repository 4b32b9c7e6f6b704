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
from tests.fuzz.differential import TORCH_HANGS, compare
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
    'Tensor.__invert__': KERNEL,
    'Tensor.__setstate__': ORDER,
    'Tensor.addbmm': ORDER,
    'Tensor.apply_': 'wants a callable; torch skips the check for an empty tensor',
    'Tensor.argsort': FLAG,
    'Tensor.baddbmm': KERNEL,
    'Tensor.baddbmm_': ORDER,
    'Tensor.bernoulli': NONE,
    'Tensor.bool': SIGNATURE,
    'Tensor.byte': SIGNATURE,
    'Tensor.cdouble': SIGNATURE,
    'Tensor.cfloat': SIGNATURE,
    'Tensor.char': SIGNATURE,
    'Tensor.cholesky': 'checks the shape of an empty input that torch does not look at',
    'Tensor.cpu': SIGNATURE,
    'Tensor.double': SIGNATURE,
    'Tensor.float': SIGNATURE,
    'Tensor.gather': HUGE,
    'Tensor.half': SIGNATURE,
    'Tensor.index_fill': ORDER,
    'Tensor.int': SIGNATURE,
    'Tensor.log_softmax': KERNEL,
    'Tensor.logsumexp': NONE,
    'Tensor.long': SIGNATURE,
    'Tensor.matrix_power': HUGE,
    'Tensor.max': NONE,
    'Tensor.min': NONE + "; " + FLAG,
    'Tensor.mode': KERNEL,
    'Tensor.nanmedian': SIGNATURE,
    'Tensor.nansum': FLAG,
    'Tensor.new': "takes a tensor of another dtype as data, which torch's legacy constructor refuses",
    'Tensor.new_empty': SIGNATURE,
    'Tensor.new_ones': SIGNATURE,
    'Tensor.new_zeros': SIGNATURE,
    'Tensor.nonzero': FLAG,
    'Tensor.numpy': FLAG,
    'Tensor.prod': NONE + "; " + FLAG,
    'Tensor.random_': "takes `from_` as a keyword, which torch's parser does not",
    'Tensor.resize': ORDER,
    'Tensor.roll': 'ignores shifts beyond the dims given, where torch wants them aligned',
    'Tensor.scatter_add': ORDER,
    'Tensor.scatter_reduce': ORDER,
    'Tensor.set_': NONE + "; " + "takes size= without a source, which torch's overloads refuse",
    'Tensor.short': SIGNATURE,
    'Tensor.softmax': KERNEL,
    'Tensor.sort': FLAG,
    'Tensor.squeeze': NONE,
    'Tensor.squeeze_': NONE,
    'Tensor.sum': FLAG,
    'Tensor.sum_to_size': SIGNATURE,
    'Tensor.tril_': HUGE,
    'Tensor.type': FLAG,
    'Tensor.unique': FLAG,
    'Tensor.unique_consecutive': FLAG,
    'operator.invert': KERNEL,
    'operator.matmul': 'wants the same dtype for both operands where torch promotes empty integer batches',
    'tensorlib.adjoint': ORDER,
    'tensorlib.alias_copy': OUT,
    'tensorlib.amax': 'casts into an out= of another dtype, which torch refuses',
    'tensorlib.autograd.backward': NONE,
    'tensorlib.autograd.grad': NONE,
    'tensorlib.baddbmm': ORDER,
    'tensorlib.bincount': HUGE,
    'tensorlib.chain_matmul': FORM,
    'tensorlib.cholesky': 'checks the shape of an empty input that torch does not look at',
    'tensorlib.conv1d': HUGE,
    'tensorlib.conv_transpose2d': HUGE,
    'tensorlib.diff': 'takes prepend/append of other dims where torch refuses them',
    'tensorlib.fft.fftn': "transforms empty inputs that torch's MKL backend refuses",
    'tensorlib.fft.irfft': "transforms empty inputs that torch's MKL backend refuses",
    'tensorlib.hinge_embedding_loss': HUGE,
    'tensorlib.histogram': FORM,
    'tensorlib.hsplit': HUGE,
    'tensorlib.kthvalue': HUGE,
    'tensorlib.linalg.ldl_factor_ex': KERNEL,
    'tensorlib.margin_ranking_loss': HUGE,
    'tensorlib.max_pool3d': HUGE,
    'tensorlib.mode': FLAG,
    'tensorlib.multinomial': HUGE,
    'tensorlib.nanmean': FLAG,
    'tensorlib.nn.functional.adaptive_avg_pool3d': HUGE,
    'tensorlib.nn.functional.adaptive_max_pool3d': ORDER,
    'tensorlib.nn.functional.batch_norm': ORDER,
    'tensorlib.nn.functional.binary_cross_entropy_with_logits': KERNEL,
    'tensorlib.nn.functional.conv_transpose2d': HUGE,
    'tensorlib.nn.functional.embedding': ORDER,
    'tensorlib.nn.functional.fractional_max_pool2d_with_indices': ORDER,
    'tensorlib.nn.functional.instance_norm': KERNEL,
    'tensorlib.nn.functional.kl_div': ORDER,
    'tensorlib.nn.functional.max_pool1d': HUGE,
    'tensorlib.nn.functional.max_pool3d': HUGE,
    'tensorlib.nn.functional.poisson_nll_loss': ORDER,
    'tensorlib.nn.functional.softmax': KERNEL,
    'tensorlib.nn.init.dirac_': ORDER,
    'tensorlib.nn.init.orthogonal_': "initialises complex tensors, where torch's sign fails",
    'tensorlib.nn.utils.clip_grad_value_': 'skips a tensor without .grad where torch fails inside',
    'tensorlib.nn.utils.rnn.pad_sequence': ORDER,
    'tensorlib.relu': SIGNATURE,
    'tensorlib.roll': "takes a shift torch's SymInt conversion refuses",
    'tensorlib.select': HUGE,
    'tensorlib.slice_copy': HUGE,
    'tensorlib.softmax': HUGE + "; " + KERNEL,
    'tensorlib.special.softmax': KERNEL,
    'tensorlib.squeeze_copy': OUT,
    'tensorlib.unique': FLAG,
    'tensorlib.vsplit': HUGE,
}

CALLEES = [(n, f, "method" if n.startswith("Tensor.") else "function") for n, f in C.functions()
           if C.torch_counterpart(n, torch) is not None and n not in TORCH_HANGS] + C.operators()


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
