"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode, as context managers and decorators; per thread."""

from __future__ import annotations

import threading

import pytest

import tensorlib


def _records(x):
    return (x * 2).requires_grad


@pytest.fixture
def x():
    return tensorlib.ones(2, requires_grad=True)


def test_default_is_enabled(x):
    assert tensorlib.is_grad_enabled()
    assert tensorlib.autograd.is_grad_enabled()
    assert _records(x)


def test_no_grad_context(x):
    with tensorlib.no_grad():
        assert not tensorlib.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.grad_fn is None
        with tensorlib.enable_grad():
            assert _records(x)
        assert not _records(x)
    assert tensorlib.is_grad_enabled()
    assert _records(x)


def test_no_grad_restores_on_exception(x):
    with pytest.raises(ValueError):
        with tensorlib.no_grad():
            raise ValueError
    assert tensorlib.is_grad_enabled()


def test_no_grad_instance_is_reusable_and_nestable(x):
    ng = tensorlib.no_grad()
    with ng:
        with ng:
            assert not tensorlib.is_grad_enabled()
        assert not tensorlib.is_grad_enabled()
    assert tensorlib.is_grad_enabled()


@pytest.mark.parametrize("parens", [True, False])
def test_no_grad_decorator(x, parens):
    def f(a):
        """doc"""
        assert not tensorlib.is_grad_enabled()
        return a * 2

    g = tensorlib.no_grad()(f) if parens else tensorlib.no_grad(f)
    assert g.__name__ == "f" and g.__doc__ == "doc"
    assert not g(x).requires_grad
    assert tensorlib.is_grad_enabled()


@pytest.mark.parametrize("parens", [True, False])
def test_enable_grad_decorator(x, parens):
    def f(a):
        return a * 2

    g = tensorlib.enable_grad()(f) if parens else tensorlib.enable_grad(f)
    with tensorlib.no_grad():
        assert g(x).requires_grad
        assert not tensorlib.is_grad_enabled()


def test_decorator_on_generator(x):
    @tensorlib.no_grad()
    def gen():
        for _ in range(2):
            yield tensorlib.is_grad_enabled()

    it = gen()
    assert next(it) is False
    assert tensorlib.is_grad_enabled()  # restored between yields
    assert next(it) is False
    with pytest.raises(StopIteration):
        next(it)


def test_set_grad_enabled_as_function_switches_immediately(x):
    tensorlib.set_grad_enabled(False)
    try:
        assert not tensorlib.is_grad_enabled()
        assert not _records(x)
    finally:
        tensorlib.set_grad_enabled(True)
    assert tensorlib.is_grad_enabled() and _records(x)


def test_set_grad_enabled_as_context_manager(x):
    with tensorlib.set_grad_enabled(False):
        assert not _records(x)
        with tensorlib.set_grad_enabled(True):
            assert _records(x)
        assert not _records(x)
    assert tensorlib.is_grad_enabled()
    with tensorlib.no_grad():
        with tensorlib.set_grad_enabled(True):
            assert _records(x)
        assert not tensorlib.is_grad_enabled()


def test_set_grad_enabled_as_decorator(x):
    @tensorlib.set_grad_enabled(False)
    def f():
        return tensorlib.is_grad_enabled()

    assert tensorlib.is_grad_enabled()  # decorating does not switch the mode
    assert f() is False
    assert tensorlib.is_grad_enabled()


def test_set_grad_enabled_rejects_non_bool():
    with pytest.raises(TypeError, match="bool"):
        tensorlib.set_grad_enabled("yes")
    assert tensorlib.is_grad_enabled()


def test_inference_mode(x):
    with tensorlib.inference_mode():
        assert not _records(x)
    with tensorlib.inference_mode(False):
        assert _records(x)

    @tensorlib.inference_mode()
    def f():
        return _records(x)

    assert f() is False
    assert tensorlib.inference_mode(lambda: tensorlib.is_grad_enabled())() is False


def test_grad_mode_is_thread_local(x):
    seen = {}
    started = threading.Event()
    release = threading.Event()

    def worker():
        seen["enabled"] = tensorlib.is_grad_enabled()
        seen["records"] = _records(x)
        with tensorlib.no_grad():
            started.set()
            release.wait(5)
            seen["inner"] = tensorlib.is_grad_enabled()

    with tensorlib.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        started.wait(5)
        # the other thread's no_grad does not leak here, and ours did not leak there
        release.set()
        t.join()
        assert not tensorlib.is_grad_enabled()
    assert seen == {"enabled": True, "records": True, "inner": False}

    # and the other way round: a thread turning grad off does not affect this one
    def disable():
        tensorlib.set_grad_enabled(False)
        seen["after"] = tensorlib.is_grad_enabled()

    t = threading.Thread(target=disable)
    t.start()
    t.join()
    assert seen["after"] is False
    assert tensorlib.is_grad_enabled()


def test_decorating_a_class_is_refused():
    with pytest.raises(TypeError, match="class"):
        tensorlib.no_grad()(type("C", (), {}))


def test_autograd_namespace_exports_the_same_objects():
    assert tensorlib.autograd.no_grad is tensorlib.no_grad
    assert tensorlib.autograd.enable_grad is tensorlib.enable_grad
    assert tensorlib.autograd.set_grad_enabled is tensorlib.set_grad_enabled
