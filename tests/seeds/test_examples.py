"""Every code block of the seeds runs unchanged and prints what the seed prints (torch's names replaced)."""

from __future__ import annotations

import os
import runpy
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples")


def run_example(name: str, capsys: pytest.CaptureFixture) -> str:
    sys.path.insert(0, os.path.abspath(EXAMPLES))
    try:
        ns = runpy.run_path(os.path.join(EXAMPLES, name), run_name="seed_test")
        capsys.readouterr()
        ns["main"]()
    finally:
        sys.path.remove(os.path.abspath(EXAMPLES))
    return capsys.readouterr().out


NOTEBOOK_004 = """\
tensor([[0., 1.],
        [2., 3.]], dtype=tensorlib.float64, requires_grad=True)
tensor([[0., 1., 2.],
        [3., 4., 5.]], dtype=tensorlib.float64, requires_grad=True)
FORWARD: output= tensor([[ 3.,  4.,  5.],
        [ 9., 14., 19.]], dtype=tensorlib.float64)
output= tensor([[ 3.,  4.,  5.],
        [ 9., 14., 19.]],
       dtype=tensorlib.float64, grad_fn=<LinearFunctionBackward>)
BACKWARD: gard_output= tensor([[1., 1., 1.],
        [1., 1., 1.]], dtype=tensorlib.float64)
BACKWARD: gard_input= tensor([[ 3., 12.],
        [ 3., 12.]], dtype=tensorlib.float64)
BACKWARD: gard_weight= tensor([[2., 2., 2.],
        [4., 4., 4.]], dtype=tensorlib.float64)
BACKWARD: gard_bias= None

True

RuntimeError: Jacobian mismatch for output 0 with respect to input 1,
numerical:tensor([[0.0000, 0.0000, 0.0000, 2.0000, 0.0000, 0.0000],
        [0.0000, 0.0000, 0.0000, 0.0000, 2.0000, 0.0000],
        [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 2.0000],
        [1.0000, 0.0000, 0.0000, 3.0000, 0.0000, 0.0000],
        [0.0000, 1.0000, 0.0000, 0.0000, 3.0000, 0.0000],
        [0.0000, 0.0000, 1.0000, 0.0000, 0.0000, 3.0000]],
       dtype=tensorlib.float64)
analytical:tensor([[0., 0., 0., 1., 0., 0.],
        [0., 0., 0., 0., 1., 0.],
        [0., 0., 0., 0., 0., 1.],
        [2., 0., 0., 3., 0., 0.],
        [0., 2., 0., 0., 3., 0.],
        [0., 0., 2., 0., 0., 3.]], dtype=tensorlib.float64)


True
output = tensor(7.3891, dtype=tensorlib.float64, grad_fn=<ExpBackward>)
tensor(7.3891, dtype=tensorlib.float64)
"""


def test_notebook_004_prints_the_seed_output(capsys):
    assert run_example("seed_notebook_004.py", capsys) == NOTEBOOK_004


def test_notebook_003_prints_the_seed_output(capsys):
    assert run_example("seed_notebook_003.py", capsys) == (
        "tensorlib.Size([10, 4])\n"
        "tensorlib.Size([3, 4])\n"
        "tensorlib.Size([10, 3])\n"
        "tensor([2.], grad_fn=<MulConstantBackward>) True\n"
    )


def test_extending_autograd_gradchecks_pass(capsys):
    assert run_example("seed_extending_autograd.py", capsys) == "True\nTrue\nTrue\n"


def test_extending_nn_module(capsys):
    out = run_example("seed_extending_nn.py", capsys).splitlines()
    assert out == [
        "Linear(input_features=4, output_features=3, bias=True)",
        "['weight', 'bias']",
        "tensorlib.Size([5, 3]) LinearFunctionBackward",
        "tensorlib.Size([3, 4]) tensorlib.Size([3])",
        "Linear(input_features=4, output_features=3, bias=False)",
    ]


SCALAR_TENSOR = """\
DiagonalTensor(N=5, value=2)
tensor([[2., 0., 0., 0., 0.],
        [0., 2., 0., 0., 0.],
        [0., 0., 2., 0., 0.],
        [0., 0., 0., 2., 0.],
        [0., 0., 0., 0., 2.]])
TypeError: mean(): argument 'input' (position 1) must be Tensor, not ScalarTensor
0.4
DiagonalTensor(N=2, value=4)
tensor([[3., 1.],
        [1., 3.]])
TypeError: add() got an unexpected keyword argument 'alpha'
TypeError: no implementation found for 'tensorlib.mul' on types that implement __torch_function__: [ScalarTensor]
tensor([[4., 0.],
        [0., 4.]])
"""


def test_scalar_tensor_prints_the_seed_results(capsys):
    assert run_example("seed_scalar_tensor.py", capsys) == SCALAR_TENSOR


METADATA_TENSOR = """\
Metadata:
{'owner': 'Ministry of Silly Walks'}

data:
tensor([[2, 4],
        [4, 6]])
Metadata:
{'owner': 'Ministry of Silly Walks'}

data:
tensor([[1, 4],
        [3, 8]])
"""


def test_metadata_tensor_prints_the_seed_results(capsys):
    assert run_example("seed_metadata_tensor.py", capsys) == METADATA_TENSOR


def test_testing_overrides_snippets(capsys):
    out = run_example("seed_testing_overrides.py", capsys).splitlines()
    assert out == [
        "['adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d', 'adaptive_max_pool1d', "
        "'adaptive_max_pool1d_with_indices']",
        "(input, other, *, alpha=1, out=None)",
        "True False",
    ]


def test_tour_runs_every_section(capsys):
    sys.path.insert(0, os.path.abspath(EXAMPLES))
    try:
        tour = runpy.run_path(os.path.join(EXAMPLES, "tour.py"), run_name="seed_test")
        for title, filename in tour["SECTIONS"]:
            tour["run"](filename)
    finally:
        sys.path.remove(os.path.abspath(EXAMPLES))
    out = capsys.readouterr().out
    assert "LinearFunctionBackward" in out and "Ministry of Silly Walks" in out and "0.4" in out


def test_mlp_reaches_torch_level_accuracy_on_digits():
    sys.path.insert(0, os.path.abspath(EXAMPLES))
    try:
        from mlp_digits import train
    finally:
        sys.path.remove(os.path.abspath(EXAMPLES))
    # A torch MLP of this shape reaches about 97% on this split.
    assert train(epochs=20, verbose=False) >= 0.95
