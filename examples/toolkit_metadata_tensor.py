"""The seed's MetadataTensor written with the duck-type toolkit: ``dispatch.Rewrap`` unwraps the arguments,
runs the function on plain tensors and wraps the result with the metadata, as the seed's hand-written
``__torch_function__`` does; ``Implementations`` lets single functions do more (here, ``torch.cat`` merges
the metadata of every part). Same output as ``seed_metadata_tensor.py`` for the seed's calls.

    python examples/toolkit_metadata_tensor.py
"""

from __future__ import annotations

from typing import Any

import dispatch

import tensorlib as torch
from tensorlib.overrides import protocol


class MetadataTensor:
    """A tensor with a metadata dict that every operation carries over."""

    def __init__(self, data: Any, metadata: Any = None, **kwargs: Any) -> None:
        self._t = torch.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self) -> str:
        return f"Metadata:\n{self._metadata}\n\ndata:\n{self._t}"


def _rewrap(result: Any, instances: list[MetadataTensor]) -> MetadataTensor:
    return MetadataTensor(result, metadata=instances[0]._metadata)


HANDLED = dispatch.Implementations(
    protocol, fallback=dispatch.Rewrap(MetadataTensor, unwrap=lambda m: m._t, wrap=_rewrap)
)
MetadataTensor.__torch_function__ = classmethod(HANDLED.handler)  # type: ignore[attr-defined]


@HANDLED.implements(torch.cat)
def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> MetadataTensor:
    merged: dict = {}
    for t in tensors:
        if isinstance(t, MetadataTensor):
            merged.update(t._metadata or {})
    plain = [t._t if isinstance(t, MetadataTensor) else t for t in tensors]
    return MetadataTensor(torch.cat(plain, dim), metadata=merged)


def main() -> None:
    metadata = {"owner": "Ministry of Silly Walks"}
    m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
    t = torch.tensor([[1, 2], [1, 2]])
    print(torch.add(t, m))
    print(torch.mul(t, m))
    other = MetadataTensor([[5, 6]], metadata={"reviewed": True})
    print(torch.cat([m, other]))


if __name__ == "__main__":
    main()
