"""The layer functions in ``tensorlib.nn.functional``: overridable, documented, torch's names and parameters."""

from __future__ import annotations

import inspect

import pytest

import tensorlib
import tensorlib.nn.functional as F
from tensorlib.overrides import get_overridable_functions

LAYER_FUNCTIONS = """conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d unfold fold avg_pool1d
avg_pool2d avg_pool3d max_pool1d max_pool2d max_pool3d max_pool1d_with_indices max_pool2d_with_indices
max_pool3d_with_indices adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
adaptive_max_pool2d adaptive_max_pool3d adaptive_max_pool1d_with_indices adaptive_max_pool2d_with_indices
adaptive_max_pool3d_with_indices lp_pool1d lp_pool2d lp_pool3d interpolate upsample upsample_nearest
upsample_bilinear pixel_shuffle pixel_unshuffle batch_norm instance_norm group_norm local_response_norm dropout1d
dropout2d dropout3d alpha_dropout feature_alpha_dropout""".split()


def test_overridable_names_start_with_the_adaptive_pools():
    names = sorted(f.__name__ for f in get_overridable_functions()[tensorlib.nn.functional])
    assert names[:5] == ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
                         "adaptive_max_pool1d_with_indices"]
    assert set(LAYER_FUNCTIONS) <= set(names)


@pytest.mark.parametrize("name", LAYER_FUNCTIONS)
def test_layer_function_is_public_documented_and_named(name):
    fn = getattr(F, name)
    assert name in F.__all__
    assert fn.__name__ == name and fn.__doc__


@pytest.mark.parametrize("name", LAYER_FUNCTIONS)
def test_parameters_match_torch(name):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn.functional, name)
    try:
        expected = list(inspect.signature(theirs).parameters)
    except (TypeError, ValueError):
        pytest.skip("torch's builtin has no introspectable signature")
    if expected == ["args", "kwargs"]:  # torch's boolean dispatch wrapper: compare with its _with_indices form
        expected = list(inspect.signature(getattr(torch.nn.functional, name + "_with_indices")).parameters)
    assert list(inspect.signature(getattr(F, name)).parameters) == expected


class Recorder:
    def __init__(self):
        self.calls = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(func.__name__)
        return "handled"


def test_layer_functions_dispatch_to_duck_types():
    r = Recorder()
    assert F.conv2d(r, tensorlib.zeros(1, 1, 1, 1)) == "handled"
    assert F.max_pool2d(r, 2) == "handled"
    assert F.batch_norm(tensorlib.zeros(2, 2), r, None) == "handled"
    assert F.interpolate(r, scale_factor=2) == "handled"
    assert r.calls == ["conv2d", "max_pool2d", "batch_norm", "interpolate"]
