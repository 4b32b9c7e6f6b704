"""The seed's ScalarTensor written with the duck-type toolkit (``dispatch.Implementations``) instead of a
hand-written ``HANDLED_FUNCTIONS`` table: the same behaviour and output as ``seed_scalar_tensor.py``, plus
signature checks when an implementation is declared.

    python examples/toolkit_scalar_tensor.py
"""

from __future__ import annotations

import dispatch

import tensorlib as torch
from tensorlib.overrides import protocol

# Only calls that involve tensors and ScalarTensors are handled: the seed's ``issubclass`` check.
HANDLED = dispatch.Implementations(protocol, accepts=(torch.Tensor,))


class ScalarTensor:
    """An N x N diagonal matrix with one value on the diagonal."""

    def __init__(self, N: int, value: float) -> None:
        self._N = N
        self._value = value

    def __repr__(self) -> str:
        return f"DiagonalTensor(N={self._N}, value={self._value})"

    def tensor(self) -> torch.Tensor:
        return self._value * torch.eye(self._N)

    __torch_function__ = classmethod(HANDLED.handler)


HANDLED.accepts = (torch.Tensor, ScalarTensor)


@HANDLED.implements(torch.mean)
def mean(input: ScalarTensor) -> float:
    return float(input._value) / input._N


def ensure_tensor(data: object) -> torch.Tensor:
    return data.tensor() if isinstance(data, ScalarTensor) else torch.as_tensor(data)


@HANDLED.implements(torch.add)
def add(input: object, other: object) -> object:
    if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor):
        if input._N != other._N:
            raise ValueError("Shape mismatch!")
        return ScalarTensor(input._N, input._value + other._value)
    return torch.add(ensure_tensor(input), ensure_tensor(other))


# The seed's second variant: what the table does not handle runs on the dense tensor.
DENSE_FALLBACK = dispatch.Implementations(
    protocol, fallback=dispatch.Rewrap(ScalarTensor, unwrap=ScalarTensor.tensor, wrap=lambda result, _: result)
)
DENSE_FALLBACK.update(HANDLED.functions().items())


class DenseScalarTensor(ScalarTensor):
    """A ScalarTensor whose unhandled functions compute on ``tensor()``."""

    __torch_function__ = classmethod(DENSE_FALLBACK.handler)


def show_error(call: object) -> None:
    try:
        call()  # type: ignore[operator]
    except TypeError as e:
        print(f"TypeError: {e}")


def main() -> None:
    d = ScalarTensor(5, 2)
    print(torch.mean(d))
    s = ScalarTensor(2, 2)
    print(torch.add(s, s))
    t = torch.tensor([[1, 1], [1, 1]])
    print(torch.add(s, t))
    show_error(lambda: torch.add(s, s, alpha=2))
    show_error(lambda: torch.mul(s, 3))
    print(torch.mul(DenseScalarTensor(2, 2), DenseScalarTensor(2, 2)))
    # what the toolkit adds: a mis-signed implementation is refused where it is declared
    try:
        HANDLED.implements(torch.sum)(lambda x: x._value * x._N)
    except TypeError as e:
        print(f"TypeError: {e}")


if __name__ == "__main__":
    main()
