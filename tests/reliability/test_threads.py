"""Threads: every mode is per thread, and concurrent backward passes into shared leaves add up exactly.

Grad mode, inference mode, anomaly detection, ``__torch_function__`` modes and the
disable contexts belong to the thread that set them (torch keeps anomaly detection
process-wide; tensorlib keeps it per thread, like everything else here). Backward
passes running in several threads at once accumulate the sum of their gradients into
shared leaves, as torch's do, including the first accumulation into an empty ``.grad``
and leaves large enough that NumPy releases the GIL while adding.

The thread switch interval is made tiny so that the interleavings that lose updates
happen within a few trials.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

import numpy as np
import pytest

import tensorlib
import tensorlib.nn as nn
from tensorlib import _C
from tensorlib.overrides import TorchFunctionMode


@pytest.fixture(autouse=True)
def _short_switch_interval():
    prev = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(prev)


def run_threads(n: int, target: Callable[..., Any], prepare: Callable[[int], Any] | None = None) -> list[Any]:
    """Run ``target(i)`` in ``n`` threads started together; return their results (re-raising any failure).

    With ``prepare``, each thread first computes ``prepare(i)`` (a forward pass), and all then call
    ``target(i, prepared)`` at once.
    """
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            if prepare is None:
                barrier.wait()
                results[i] = target(i)
            else:
                prepared = prepare(i)
                barrier.wait()
                results[i] = target(i, prepared)
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


# -- modes are per thread -------------------------------------------------------------------------------


class Counting(TorchFunctionMode):
    """A mode that counts the calls it sees and passes them on."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


def _state() -> tuple:
    return (
        tensorlib.is_grad_enabled(),
        tensorlib.is_anomaly_enabled(),
        _C._len_torch_function_stack(),
        _C._is_torch_function_enabled(),
        _C._is_torch_function_all_disabled(),
    )


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_eight_threads_with_different_modes_never_see_each_others_state():
    # per thread: what makes its context managers (made in the thread), and the state it must observe inside
    kinds: list[tuple[Callable[[], list], tuple]] = [
        (lambda: [], (True, False, 0, True, False)),
        (lambda: [tensorlib.no_grad()], (False, False, 0, True, False)),
        (lambda: [tensorlib.inference_mode()], (False, False, 0, True, False)),
        (lambda: [tensorlib.autograd.detect_anomaly()], (True, True, 0, True, False)),
        (lambda: [Counting()], (True, False, 1, True, False)),
        (lambda: [_C.DisableTorchFunction()], (True, False, 0, False, True)),
        (lambda: [_C.DisableTorchFunctionSubclass()], (True, False, 0, False, False)),
        (lambda: [tensorlib.no_grad(), Counting(), Counting()], (False, False, 2, True, False)),
    ]
    rounds = 30
    in_step = threading.Barrier(len(kinds))

    def work(i: int) -> tuple:
        make, expected = kinds[i]
        contexts = make()
        seen = []
        w = tensorlib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tensorlib.float64, requires_grad=True)
        for _ in range(rounds):
            for c in contexts:
                c.__enter__()
            try:
                in_step.wait(30)  # every thread is inside its contexts now
                seen.append(_state())
                y = (w * w).sum()
                seen.append(_state())
                assert y.requires_grad == expected[0]
                if y.requires_grad:
                    y.backward()
                seen.append(_state())
                in_step.wait(30)
            finally:
                for c in reversed(contexts):
                    c.__exit__(None, None, None)
            seen.append(_state())
        return seen, expected, contexts, w

    results = run_threads(8, work)
    for i, (seen, expected, contexts, w) in enumerate(results):
        inside = [s for k, s in enumerate(seen) if k % 4 != 3]
        outside = [s for k, s in enumerate(seen) if k % 4 == 3]
        assert inside == [expected] * (3 * rounds), f"thread {i} saw another thread's state"
        assert outside == [(True, False, 0, True, False)] * rounds, f"thread {i} did not restore its state"
        if expected[0]:
            np.testing.assert_array_equal(w.grad.numpy(), 2 * rounds * w.detach().numpy())
        else:
            assert w.grad is None
        for c in contexts:
            if isinstance(c, Counting):
                # each round's w * w, .sum(), two reads of y.requires_grad and y.backward() (when it runs), as
                # torch counts them
                assert c.calls == (5 if expected[0] else 4) * rounds
    assert _state() == (True, False, 0, True, False)


def test_a_mode_set_in_one_thread_is_not_seen_by_a_thread_it_starts():
    seen = {}

    def child() -> None:
        seen["state"] = _state()

    with tensorlib.no_grad(), tensorlib.autograd.set_detect_anomaly(True), Counting() as mode:
        with _C.DisableTorchFunctionSubclass():
            t = threading.Thread(target=child)
            t.start()
            t.join()
    assert seen["state"] == (True, False, 0, True, False)
    assert mode.calls == 0


def test_anomaly_detection_in_one_thread_does_not_make_another_threads_backward_raise():
    nan_grad = tensorlib.tensor([0.0], requires_grad=True)
    started, finished = threading.Event(), threading.Event()
    outcome = {}

    def debugging_thread() -> None:
        with tensorlib.autograd.set_detect_anomaly(True):
            started.set()
            finished.wait(10)

    def other_thread() -> None:
        started.wait(10)
        y = tensorlib.sqrt(nan_grad * 0.0) * 0.0  # sqrt'(0) is inf, times 0: NaN in backward
        y.sum().backward()
        outcome["grad"] = nan_grad.grad.clone()
        finished.set()

    a, b = threading.Thread(target=debugging_thread), threading.Thread(target=other_thread)
    a.start(), b.start()
    a.join(), b.join()
    assert np.isnan(outcome["grad"].numpy()).all()  # no anomaly error: detection was on in the other thread only
    with tensorlib.autograd.set_detect_anomaly(True):
        with pytest.raises(RuntimeError, match="returned nan values"):
            (tensorlib.sqrt(nan_grad * 0.0) * 0.0).sum().backward()
    assert not tensorlib.is_anomaly_enabled()


# -- concurrent backward into shared leaves ----------------------------------------------------------------


def _integer_model() -> nn.Module:
    """A small MLP in float64 with integer weights, so every sum of gradients is exact whatever its order."""
    tensorlib.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 3)).double()
    with tensorlib.no_grad():
        for p in model.parameters():
            p.copy_(tensorlib.randint(-2, 3, p.shape, dtype=tensorlib.float64))
    return model


def _grads(model: nn.Module) -> list[np.ndarray]:
    return [p.grad.numpy().copy() for p in model.parameters()]


def test_concurrent_backward_on_a_shared_model_accumulates_the_exact_sum():
    model = _integer_model()
    n_threads, steps = 6, 5
    batches = [tensorlib.randint(-3, 4, (4, 6), dtype=tensorlib.float64) for _ in range(n_threads)]

    def loss(x):
        # sums of products of small integers: exact in float64 (tanh's values are not, but each thread's
        # gradient is computed the same way in both runs; only the order of the additions into .grad differs)
        return model(x).sum()

    # the reference: the same backward passes, one after the other
    for _ in range(steps):
        for x in batches:
            loss(x).backward()
    expected = _grads(model)
    model.zero_grad()

    def work(i: int) -> None:
        for _ in range(steps):
            loss(batches[i]).backward()

    for _ in range(3):
        run_threads(n_threads, work)
    expected = [3 * e for e in expected]
    for got, want in zip(_grads(model), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("existing", [False, True], ids=["first accumulation", "into existing grad"])
def test_concurrent_backward_never_loses_an_update(existing):
    # integer-valued gradients: the expected sum is exact, and a lost update is off by a whole contribution
    n_threads = 8
    for _ in range(25):
        w = tensorlib.ones(3, 4, dtype=tensorlib.float64, requires_grad=True)
        if existing:
            w.grad = tensorlib.full((3, 4), 100.0, dtype=tensorlib.float64)
        run_threads(n_threads, lambda i, y: y.backward(), lambda i: (w * float(i + 1)).sum())
        expected = (100.0 if existing else 0.0) + sum(range(1, n_threads + 1))
        np.testing.assert_array_equal(w.grad.numpy(), np.full((3, 4), expected))


def test_concurrent_backward_into_a_large_shared_leaf():
    # 2.25M elements: NumPy releases the GIL inside the in-place addition, where unguarded threads interleave
    n_threads = 4
    w = tensorlib.ones(1500, 1500, requires_grad=True)
    for trial in range(2):
        run_threads(n_threads, lambda i, y: y.backward(), lambda i: (w * float(i + 1)).sum())
        expected = (trial + 1) * sum(range(1, n_threads + 1))
        wrong = int((w.grad.numpy() != expected).sum())
        assert wrong == 0, f"{wrong} elements of 2.25M lost an update"


def test_concurrent_backward_with_create_graph_keeps_every_contribution():
    n_threads = 6
    for _ in range(5):
        w = tensorlib.tensor([1.0, 2.0], dtype=tensorlib.float64, requires_grad=True)
        run_threads(n_threads, lambda i, y: y.backward(create_graph=True), lambda i: (w * w * float(i + 1)).sum())
        total = sum(range(1, n_threads + 1))
        np.testing.assert_array_equal(w.grad.detach().numpy(), 2 * total * np.array([1.0, 2.0]))
        assert w.grad.requires_grad  # the accumulated gradient kept its history
        (g,) = tensorlib.autograd.grad(w.grad.sum(), w)
        np.testing.assert_array_equal(g.numpy(), [2.0 * total, 2.0 * total])


def test_threads_reaching_a_new_leaf_together_share_its_node_and_hooks():
    seen = []
    lock = threading.Lock()
    for _ in range(10):
        w = tensorlib.tensor([1.0, 1.0], requires_grad=True)  # no autograd metadata yet
        nodes = run_threads(8, lambda i: (w * 2.0).grad_fn.next_functions[0][0])
        assert all(n is nodes[0] for n in nodes)

        def hook(g, _seen=seen):
            with lock:
                _seen.append(1)

        seen.clear()
        w.register_hook(hook)
        run_threads(8, lambda i, y: y.backward(), lambda i: (w * 2.0).sum())
        assert len(seen) == 8
        np.testing.assert_array_equal(w.grad.numpy(), [16.0, 16.0])


def test_torch_accumulates_the_same_sums():
    torch = pytest.importorskip("torch")
    n_threads = 8
    results = {}
    for lib in (tensorlib, torch):
        w = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        run_threads(n_threads, lambda i, y: y.backward(), lambda i: (w * float(i + 1)).sum())
        results[lib.__name__] = w.grad.numpy().copy()
    np.testing.assert_array_equal(results["tensorlib"], results["torch"])
