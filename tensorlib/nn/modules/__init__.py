"""Layer modules."""

from .activation import (
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish, ReLU,
    ReLU6, SELU, Sigmoid, SiLU, Softmax, Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold,
)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss,
)
from .misc import Dropout, Embedding, Flatten, LayerNorm, Unflatten
from .module import Module
