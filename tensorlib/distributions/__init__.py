"""``tensorlib.distributions``: parameterised probability distributions, as ``torch.distributions``.

Each has ``sample``/``rsample`` (reparameterised, where the family allows),
``log_prob``, ``entropy``, ``mean``/``variance`` and its shapes
(``batch_shape``, ``event_shape``); everything is built from tensorlib ops,
so ``log_prob`` and ``rsample`` are differentiable in the parameters.
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

# isort: split
# continuous families (gamma family, Laplace, Cauchy, StudentT, F, Wishart, LKJ) and their KL pairs
from . import _kl_continuous  # noqa: F401  (registers the KL pairs)
from .beta import Beta
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .student_t import StudentT
from .wishart import Wishart

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "Uniform", "constraints", "kl_divergence",
           "register_kl"]

# -- transforms, constraint registries, TransformedDistribution, Independent and the families built on them --
from . import (
    _kl_transforms as _kl_transforms,  # registers the KL divergences of these families
    constraint_registry,
    transforms,
)
from .constraint_registry import biject_to, transform_to
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kumaraswamy import Kumaraswamy
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)

__all__ += [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "Gumbel", "HalfNormal", "Independent", "IndependentTransform",
    "Kumaraswamy", "LogNormal", "LogisticNormal", "LowerCholeskyTransform", "PositiveDefiniteTransform",
    "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform",
    "TransformedDistribution", "biject_to", "constraint_registry", "identity_transform", "transform_to", "transforms",
]
__all__ += ["Beta", "Cauchy", "Chi2", "Dirichlet", "Exponential", "FisherSnedecor", "Gamma", "LKJCholesky", "Laplace", "StudentT", "Wishart"]
