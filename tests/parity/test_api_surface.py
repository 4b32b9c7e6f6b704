"""The names a torch user reaches for exist in tensorlib, with torch's parameter names, kinds and defaults."""

from __future__ import annotations

import inspect

import pytest

import tensorlib

# namespace (as a dotted path below tensorlib / torch) -> names that must exist
NAMES = {
    "": """save load manual_seed tensor zeros ones empty full eye arange linspace rand randn randint randperm cat stack
        split chunk where clamp argmax argmin topk sort gather scatter max min sum mean std var no_grad enable_grad
        is_tensor from_numpy as_tensor matmul mm bmm einsum flatten reshape squeeze unsqueeze transpose permute allclose
        equal softmax log_softmax sigmoid tanh relu outer dot cumsum zeros_like ones_like full_like randn_like tril triu
        diag trace flip roll masked_select nonzero unique bincount histc logsumexp lerp quantile nanquantile
        set_printoptions get_default_dtype set_default_dtype float32 float64 int64 long float double bool uint8 finfo
        iinfo device Generator Size cosine_similarity pairwise_distance tril_indices triu_indices combinations
        is_anomaly_enabled FloatTensor LongTensor DoubleTensor IntTensor BoolTensor ByteTensor inference_mode
        set_grad_enabled is_grad_enabled get_rng_state set_rng_state""",
    "nn": """Module Sequential ModuleList ModuleDict ParameterList ParameterDict Parameter Linear Conv1d Conv2d BatchNorm1d
        BatchNorm2d LayerNorm Dropout ReLU GELU Embedding LSTM GRU RNN LSTMCell GRUCell RNNCell MultiheadAttention
        Transformer TransformerEncoder TransformerEncoderLayer TransformerDecoder TransformerDecoderLayer PReLU
        CosineSimilarity PairwiseDistance ZeroPad2d ConstantPad2d ReflectionPad2d ReplicationPad2d CrossEntropyLoss
        NLLLoss MSELoss BCEWithLogitsLoss MarginRankingLoss TripletMarginLoss CosineEmbeddingLoss GaussianNLLLoss
        PoissonNLLLoss HingeEmbeddingLoss SoftMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss
        AdaptiveLogSoftmaxWithLoss CTCLoss ChannelShuffle Container CrossMapLRN2d DataParallel EmbeddingBag
        FractionalMaxPool2d FractionalMaxPool3d LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d LazyConv1d LazyConv2d
        LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d LazyInstanceNorm1d LazyInstanceNorm2d
        LazyInstanceNorm3d LazyLinear LinearCrossEntropyLoss MaxUnpool1d MaxUnpool2d MaxUnpool3d MultiLabelMarginLoss
        NLLLoss2d RMSNorm RReLU Softmax2d SyncBatchNorm TripletMarginWithDistanceLoss UninitializedParameter
        UninitializedBuffer""",
    "nn.functional": """one_hot scaled_dot_product_attention prelu triplet_margin_loss margin_ranking_loss
        cosine_embedding_loss gaussian_nll_loss poisson_nll_loss multi_margin_loss soft_margin_loss
        multilabel_soft_margin_loss hinge_embedding_loss cross_entropy affine_grid grid_sample ctc_loss embedding_bag
        fractional_max_pool2d_with_indices fractional_max_pool3d_with_indices gumbel_softmax linear_cross_entropy
        max_unpool1d max_unpool2d max_unpool3d multilabel_margin_loss rms_norm rrelu triplet_margin_with_distance_loss
        grouped_mm elu_ celu_ selu_ hardtanh_ leaky_relu_ threshold_ rrelu_ channel_shuffle pdist""",
    "nn.utils": "clip_grad_norm_ clip_grad_value_ parameters_to_vector vector_to_parameters get_total_norm",
    "nn.utils.rnn": "pad_sequence pack_padded_sequence pad_packed_sequence pack_sequence unpad_sequence PackedSequence",
    "optim": "SGD Adam AdamW RMSprop Adagrad Optimizer",
    "optim.lr_scheduler": """LRScheduler StepLR MultiStepLR ExponentialLR CosineAnnealingLR LambdaLR MultiplicativeLR
        ConstantLR LinearLR PolynomialLR CosineAnnealingWarmRestarts SequentialLR ReduceLROnPlateau OneCycleLR""",
    "utils.data": """Dataset IterableDataset TensorDataset ConcatDataset Subset DataLoader Sampler SequentialSampler
        RandomSampler SubsetRandomSampler WeightedRandomSampler BatchSampler random_split default_collate""",
    "autograd": "Function grad backward gradcheck gradgradcheck detect_anomaly set_detect_anomaly functional",
    "autograd.functional": "jacobian hessian vjp jvp hvp vhp",
    "testing": "assert_close make_tensor",
}

TENSOR_METHODS = """unfold quantile nanquantile histc fill_diagonal_ new is_signed is_same_size sum_to_size H mH is_cpu
    eq_ ne_ lt_ le_ gt_ ge_ logical_not_ logical_and_ bitwise_not_ split_with_sizes multinomial bernoulli register_hook
    retain_grad backward detach item tolist numpy to type float long _version"""
MODULE_METHODS = """register_full_backward_hook register_full_backward_pre_hook register_backward_hook
    register_forward_hook register_forward_pre_hook"""

# (namespace, name): where a difference with torch's signature is deliberate
SIGNATURE_EXCEPTIONS = {
    # torch's default is the function F.relu; tensorlib's the equivalent string "relu"
    ("nn", "TransformerEncoderLayer"), ("nn", "TransformerDecoderLayer"), ("nn", "Transformer"),
    # torch's default is its default generator object; None means the same here
    ("utils.data", "random_split"),
    # tensorlib is more permissive: keyword use of a positional-only parameter, ``@no_grad`` without parentheses,
    # and einsum's (equation, *operands) spelled out where torch has (*args)
    ("", "is_tensor"), ("", "set_default_dtype"), ("", "no_grad"), ("", "einsum"),
}


def _resolve(root, path):
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def _signature(obj):
    target = obj.__init__ if isinstance(obj, type) else obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params) and any(p.kind is p.VAR_KEYWORD for p in params):
        return None  # torch's (*args, **kwargs) wrappers say nothing
    return [(p.name, p.kind, p.default if p.default is not p.empty else "<required>") for p in params]


@pytest.mark.parametrize("namespace", sorted(NAMES))
def test_names_exist(namespace):
    ns = _resolve(tensorlib, namespace)
    missing = [n for n in NAMES[namespace].split() if not hasattr(ns, n)]
    assert missing == []


def test_tensor_and_module_methods_exist():
    assert [n for n in TENSOR_METHODS.split() if not hasattr(tensorlib.Tensor, n)] == []
    assert [n for n in MODULE_METHODS.split() if not hasattr(tensorlib.nn.Module, n)] == []


@pytest.mark.parametrize("namespace", sorted(NAMES))
def test_signatures_match_torch(namespace):
    torch = pytest.importorskip("torch")
    ours, theirs = _resolve(tensorlib, namespace), _resolve(torch, namespace)
    diffs = []
    for name in NAMES[namespace].split():
        if (namespace, name) in SIGNATURE_EXCEPTIONS or not hasattr(theirs, name):
            continue
        expected = _signature(getattr(theirs, name))
        if expected is None:
            continue
        got = _signature(getattr(ours, name))
        if got != expected:
            diffs.append(f"{namespace}.{name}: torch {expected} != tensorlib {got}")
    assert diffs == []


def test_module_hook_signatures_match_torch():
    torch = pytest.importorskip("torch")
    for name in MODULE_METHODS.split():
        assert _signature(getattr(tensorlib.nn.Module, name)) == _signature(getattr(torch.nn.Module, name)), name
