"""Seed 002, "Extending torch with a Tensor-like type": ScalarTensor and both __torch_function__ variants."""

import functools

import tensorlib as torch


def first_iteration():
    """The first design, without __torch_function__: the torch API rejects it."""
    class ScalarTensor(object):
       def __init__(self, N, value):
           self._N = N
           self._value = value

       def __repr__(self):
           return "DiagonalTensor(N={}, value={})".format(self._N, self._value)

       def tensor(self):
           return self._value * torch.eye(self._N)

    d = ScalarTensor(5, 2)
    print(repr(d))
    print(d.tensor())
    show_error(lambda: torch.mean(d))


HANDLED_FUNCTIONS = {}
class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "DiagonalTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    @functools.wraps(torch_function)
    def decorator(func):
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return torch.as_tensor(data)


@implements(torch.add)
def add(input, other):
   try:
       if input._N == other._N:
           return ScalarTensor(input._N, input._value + other._value)
       else:
           raise ValueError("Shape mismatch!")
   except AttributeError:
       return torch.add(ensure_tensor(input), ensure_tensor(other))


def __torch_function__(self, func, types, args=(), kwargs=None):
    """The second variant: unhandled functions fall back to the dense tensor."""
    if kwargs is None:
        kwargs = {}
    if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
        args = [a.tensor() if hasattr(a, 'tensor') else a for a in args]
        return func(*args, **kwargs)
    return HANDLED_FUNCTIONS[func](*args, **kwargs)


def show_error(call):
    try:
        call()
    except TypeError as e:
        print(f"TypeError: {e}")


def main():
    first_iteration()

    d = ScalarTensor(5, 2)
    print(torch.mean(d))

    s = ScalarTensor(2, 2)
    print(torch.add(s, s))
    t = torch.tensor([[1, 1,], [1, 1]])
    print(torch.add(s, t))
    show_error(lambda: torch.add(s, s, alpha=2))
    show_error(lambda: torch.mul(s, 3))

    original = ScalarTensor.__torch_function__
    ScalarTensor.__torch_function__ = __torch_function__
    try:
        s = ScalarTensor(2, 2)
        print(torch.mul(s, s))
    finally:
        ScalarTensor.__torch_function__ = original


if __name__ == "__main__":
    main()
