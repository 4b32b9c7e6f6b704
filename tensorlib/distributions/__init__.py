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

# discrete and multivariate families (dist-c)
# isort: split
from . import _kl_discrete  # noqa: F401  (registers the KL pairs of these families)
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .one_hot_categorical import OneHotCategorical
from .one_hot_categorical_straight_through import OneHotCategoricalStraightThrough
from .poisson import Poisson
from .von_mises import VonMises

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "Uniform", "constraints", "kl_divergence",
           "register_kl"]
# discrete and multivariate families (dist-c)
__all__ += ["Binomial", "ContinuousBernoulli", "GeneralizedPareto", "Geometric", "LowRankMultivariateNormal",
            "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "OneHotCategorical",
            "OneHotCategoricalStraightThrough", "Poisson", "VonMises"]
