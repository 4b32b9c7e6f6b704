"""tensorlib on Dask: unmodified tensorlib code on data larger than memory, and data-parallel training.

:class:`DaskTensor` wraps a ``dask.array.Array`` and takes part in tensorlib's ``__torch_function__`` protocol:
``model(x)``, ``F.cross_entropy(model(x), y)`` or ``(x - x.mean(0)) / x.std(0)`` on a DaskTensor build a Dask
graph whose tasks compute each chunk with tensorlib's own functions; ``.compute()`` runs it (on a
``distributed`` cluster when a ``Client`` is active) and returns a :class:`tensorlib.Tensor`.
:func:`data_parallel_step` trains a model on shards held by Dask workers.

On a ``distributed`` cluster the scheduler keeps the graph: when a worker dies, the chunks it held or was
computing are recomputed on the other workers (its nanny starts a new one), and the result is unchanged; a task
during which workers keep dying (more than ``distributed.scheduler.allowed-failures`` times) fails with
``KilledWorker``.

Needs the ``dask`` extra (``pip install 'tensorlib[dask]'``: ``dask[array]`` and ``distributed``);
``import tensorlib`` never imports this module.
"""

from __future__ import annotations

try:
    import dask.array  # noqa: F401 - checked here so that the error names the extra
except ImportError as exc:  # pragma: no cover - exercised by the structure tests without the extra
    raise ImportError(
        "tensorlib.dask needs Dask: install the 'dask' extra (pip install 'tensorlib[dask]', which brings "
        "dask[array] and distributed)"
    ) from exc

from . import _methods, _nn, _pointwise, _reductions, _shape  # noqa: F401 - they fill the table
from ._tensor import HANDLED, DaskTensor, compute, from_tensor
from ._training import data_parallel_step, shards_of

_methods.install()

__all__ = ["DaskTensor", "HANDLED", "compute", "data_parallel_step", "from_tensor", "shards_of"]
