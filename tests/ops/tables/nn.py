"""Op-table entries of torch's top-level forms of layers and losses (``tensorlib.conv2d``, ``tensorlib.kl_div``, ...).

They run the ``nn.functional`` implementations with torch's top-level signatures (integer reductions, required
arguments, ``embedding(weight, indices)``): the table checks them against torch, with gradcheck and
gradgradcheck. Names that torch keeps in ``torch._C._nn`` (``gelu``, ``linear``, ...) are compared with those.
"""

from __future__ import annotations

import numpy as np

from tests.ops.opinfo import Const, idx, op, pos, r, s

_nn = "_C._nn."

# -- convolution, pooling, shuffles ---------------------------------------------------------------------------

op("conv1d", [s(r(2, 3, 7), r(4, 3, 3), r(4)), s(r(3, 6), r(2, 3, 2), None, 2, 1, 2),
              s(r(1, 4, 6), r(4, 2, 3), padding="same", groups=2)], None)
op("conv2d", [s(r(1, 2, 5, 4), r(3, 2, 2, 3), r(3)), s(r(1, 2, 5, 5), r(2, 1, 3, 3), None, (2, 1), 1, 1, 2)], None)
op("conv3d", [s(r(1, 2, 3, 4, 3), r(2, 2, 2, 2, 2), r(2), 1, (1, 0, 1))], None)
op("conv_transpose1d", [s(r(2, 3, 4), r(3, 2, 3), r(2), 2, 1, 1), s(r(1, 4, 3), r(4, 1, 2), None, 1, 0, 0, 2)], None)
op("conv_transpose2d", [s(r(1, 2, 3, 3), r(2, 3, 2, 2), r(3), 2)], None)
op("conv_transpose3d", [s(r(1, 2, 2, 3, 2), r(2, 1, 2, 2, 2), None, (1, 2, 1))], None)
op("avg_pool1d", [s(r(2, 3, 7), 3), s(r(3, 7), 3, 2, 1, True, False)], None)
op("avg_pool2d", [s(r(1, 2, 5, 4), 2), s(r(2, 4, 5), (3, 2), 1, 1, False, True, 3)], None,
   torch_name=_nn + "avg_pool2d")
op("avg_pool3d", [s(r(1, 1, 4, 3, 4), 2, 1, 1, True)], None, torch_name=_nn + "avg_pool3d")
op("adaptive_avg_pool1d", [s(r(2, 3, 7), 3), s(r(3, 5), 8)], None)
op("adaptive_max_pool1d", [s(r(2, 3, 7), 3), s(r(3, 5), 2)], None)
op("max_pool1d", [s(r(2, 3, 7), 2), s(r(3, 8), 3, 2, 1, 1, True)], None)
op("max_pool1d_with_indices", [s(r(2, 3, 7), 2), s(r(3, 8), 3, (), 1, 2)], None)
op("max_pool2d", [s(r(1, 2, 5, 4), 2), s(r(2, 5, 5), (2, 3), 2, 1, 1, True)], None)
op("max_pool3d", [s(r(1, 1, 4, 3, 4), 2, 1, 1)], None)
op("pixel_shuffle", [s(r(1, 8, 2, 3), 2)], None)
op("pixel_unshuffle", [s(r(1, 2, 4, 6), 2)], None)
op("channel_shuffle", [s(r(2, 6, 3), 3), s(r(1, 4, 2, 2), 2)], None)

# -- activations ------------------------------------------------------------------------------------------------

op("celu", [s(r(2, 3)), s(r(2, 3), 0.7)], lambda a, alpha=1.0: np.where(a > 0, a, alpha * np.expm1(a / alpha)))
op("selu", [s(r(2, 3))], None)
op("threshold", [s(r(2, 3), 0.1, -2.0)], lambda a, t, v: np.where(a > t, a, v))
op("rrelu", [s(r(2, 3)), s(r(2, 3), 0.2, 0.4)], lambda a, lo=1 / 8, hi=1 / 3: np.where(a > 0, a, a * (lo + hi) / 2))
op("hardshrink", [s(r(2, 3)), s(r(2, 3), 1.1)], lambda a, lambd=0.5: np.where(np.abs(a) > lambd, a, 0.0))
op("softshrink", [s(r(2, 3)), s(r(2, 3), 1.1)], None, torch_name=_nn + "softshrink")
op("softplus", [s(r(2, 3)), s(r(2, 3) * 4, 2.0, 3.0)], None, torch_name=_nn + "softplus")
op("gelu", [s(r(2, 3)), s(r(2, 3), approximate="tanh")], None, torch_name=_nn + "gelu")
op("log_sigmoid", [s(r(2, 3))], lambda a: -np.logaddexp(0, -a), torch_name=_nn + "log_sigmoid")
op("prelu", [s(r(2, 3, 4), pos(3)), s(r(5), pos(1))], None)

# -- linear maps, attention, recurrent cells ---------------------------------------------------------------------

op("linear", [s(r(4, 3), r(2, 3), r(2)), s(r(2, 4, 3), r(5, 3))], lambda a, w, b=0: a @ w.T + b,
   torch_name=_nn + "linear")
op("bilinear", [s(r(4, 3), r(4, 2), r(5, 3, 2), r(5)), s(r(2, 3, 3), r(2, 3, 2), r(4, 3, 2))], None)
op("scaled_dot_product_attention", [s(r(2, 3, 4), r(2, 5, 4), r(2, 5, 3)),
                                    s(r(1, 4, 2), r(1, 4, 2), r(1, 4, 2), is_causal=True, scale=0.7)], None,
   torch_name=_nn + "scaled_dot_product_attention")
op("rnn_tanh_cell", [s(r(3, 4), r(3, 5), r(5, 4), r(5, 5), r(5), r(5)), s(r(3, 4), r(3, 5), r(5, 4), r(5, 5))], None)
op("rnn_relu_cell", [s(r(3, 4), r(3, 5), r(5, 4), r(5, 5), r(5), r(5))], None)
op("gru_cell", [s(r(3, 4), r(3, 5), r(15, 4), r(15, 5), r(15), r(15))], None)
op("lstm_cell", [s(r(3, 4), (r(3, 5), r(3, 5)), r(20, 4), r(20, 5), r(20), r(20)),
                 s(r(3, 4), [r(3, 5), r(3, 5)], r(20, 4), r(20, 5))], None)

# -- normalisation ---------------------------------------------------------------------------------------------

op("batch_norm", [s(r(4, 3), r(3), r(3), Const(r(3)), Const(pos(3)), True, 0.1, 1e-5, False),
                  s(r(2, 3, 4), None, None, Const(r(3)), Const(pos(3)), False, 0.3, 1e-3, True)], None)
op("instance_norm", [s(r(2, 3, 4), r(3), r(3), None, None, True, 0.1, 1e-5, False),
                     s(r(2, 3, 4), None, None, Const(r(3)), Const(pos(3)), False, 0.1, 1e-5, False)], None)
op("group_norm", [s(r(2, 4, 3), 2, r(4), r(4)), s(r(2, 6, 2, 2), 3, None, None, 1e-3)], None)
op("layer_norm", [s(r(2, 3, 4), [4], r(4), r(4)), s(r(2, 3, 4), (3, 4), None, None, 1e-3)], None)
op("rms_norm", [s(r(2, 3, 4), [4], r(4)), s(r(2, 3, 4), (3, 4), None, 1e-3)], None)

# -- losses (reduction: 0 none, 1 mean, 2 sum) -------------------------------------------------------------------

_Y01 = Const(r(2, 3, lo=0.0, hi=1.0))
_SIGNS = Const(np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]))
op("binary_cross_entropy_with_logits",
   [s(r(2, 3), _Y01, None, None, 1), s(r(2, 3), _Y01, Const(pos(3)), Const(pos(3)), 0),
    s(r(2, 3), _Y01, None, None, 2), s(r(2, 3), _Y01)], None)
op("kl_div", [s(r(2, 3), Const(pos(2, 3))), s(r(2, 3), r(2, 3), 2, log_target=True), s(r(2, 3), pos(2, 3), 0)],
   None)
op("cosine_embedding_loss", [s(r(3, 4), r(3, 4), Const(np.array([1.0, -1.0, 1.0])), 0.1),
                             s(r(3, 4), r(3, 4), Const(np.array([1.0, -1.0, -1.0])), 0.0, 0)], None)
op("hinge_embedding_loss", [s(r(2, 3), _SIGNS), s(r(2, 3), _SIGNS, 0.5, 2)], None)
op("margin_ranking_loss", [s(r(5), r(5), Const(np.array([1.0, -1.0, 1.0, 1.0, -1.0])), 0.2),
                           s(r(5), r(5), Const(np.array([1.0, -1.0, 1.0, 1.0, -1.0])), 0.0, 0)], None)
op("triplet_margin_loss", [s(r(3, 4), r(3, 4), r(3, 4)), s(r(3, 4), r(3, 4), r(3, 4), 0.5, 1.0, 1e-6, True, 2)],
   None)
op("poisson_nll_loss", [s(r(2, 3), Const(pos(2, 3)), True, False, 1e-8, 1),
                        s(pos(2, 3), Const(pos(2, 3) * 3), False, True, 1e-8, 0)], None)
# torch's gradient of ctc_loss is for log_softmax outputs (tests/nn/test_ctc.py checks it through log_softmax)
op("ctc_loss", [s(r(6, 2, 4), idx([[1, 2, 2], [3, 1, 0]]), idx([6, 5]), idx([3, 2])),
                s(r(6, 2, 4), idx([1, 2, 3]), [6, 4], [2, 1], 0, 2),
                s(r(5, 4), idx([1, 1]), idx(5), idx(2), 3, 0, True)], None, grad=False)

# -- embeddings -------------------------------------------------------------------------------------------------

op("embedding", [s(r(5, 3), idx([[0, 2], [4, 2]])), s(r(5, 3), idx([1, 3]), -2)], None)
# a padding row gets no gradient and scale_grad_by_freq scales the rows' gradients: not derivatives, so the table
# checks the values and tests/nn/test_toplevel_forms.py the gradients against torch's
op("embedding", [s(r(5, 3), idx([0, 2, 2, 4]), 2), s(r(5, 3), idx([0, 2, 2, 4]), -1, True)], None, grad=False)
op("embedding_bag", [s(r(6, 3), idx([0, 2, 1, 4, 5, 1]), idx([0, 2, 2, 5])),
                     s(r(6, 3), idx([0, 2, 1, 4, 5, 1]), idx([0, 2, 2, 5]), False, 1, False, None, True, 1),
                     s(r(6, 3), idx([0, 2, 1, 4, 5, 1]), idx([0, 3]), False, 2),
                     s(r(6, 3), idx([0, 2, 1, 4, 5, 1]), idx([0, 3]), False, 0, False, r(6))], None)
op("one_hot", [s(idx([0, 3, 1])), s(idx([[0, 2], [1, 1]]), 4)], lambda a, n=-1: np.eye(a.max() + 1 if n < 0 else n,
                                                                                         dtype=np.int64)[a],
   torch_name=_nn + "one_hot")
op("pdist", [s(r(4, 3)), s(r(5, 2), 1.0), s(r(3, 4), 3.0)], None)

# The dropouts draw random masks: tests/nn/test_toplevel_forms.py checks their statistics, their in-place forms,
# and, with ``train=False`` or p = 0, that they return their input.
NOT_IN_TABLE = {"dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
                "feature_alpha_dropout", "feature_alpha_dropout_"}
