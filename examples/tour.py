"""A tour of tensorlib: every example of the "Extending PyTorch" seeds, run end to end, then a small MLP.

Run it with ``make tour`` (builds a virtual environment first) or ``python examples/tour.py``.
"""

from __future__ import annotations

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

SECTIONS = [
    ("Extending autograd: LinearFunction, MulConstant, gradcheck (seed 002)", "seed_extending_autograd.py"),
    ("Extending nn: a Linear module on LinearFunction (seed 002)", "seed_extending_nn.py"),
    ("Notebook 003: Function, needs_input_grad, MulConstant", "seed_notebook_003.py"),
    ("Notebook 004: forward/backward prints, gradcheck passing and failing, Exp", "seed_notebook_004.py"),
    ("Extending torch with a Tensor-like type: ScalarTensor (seed 002)", "seed_scalar_tensor.py"),
    ("Extending torch with a wrapper type: MetadataTensor (seed 002)", "seed_metadata_tensor.py"),
    ("Testing coverage of overrides (seed 002)", "seed_testing_overrides.py"),
    ("ScalarTensor on the duck-type toolkit (dispatch.Implementations)", "toolkit_scalar_tensor.py"),
    ("MetadataTensor on the duck-type toolkit (dispatch.Rewrap)", "toolkit_metadata_tensor.py"),
    ("A picture of an autograd graph (Graphviz DOT)", "autograd_graph.py"),
]


def run(filename: str) -> None:
    """Run an example's ``main()`` as the script would."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    namespace = runpy.run_path(os.path.join(HERE, filename), run_name="tour_example")
    namespace["main"]()


def main() -> None:
    for title, filename in SECTIONS:
        print("=" * 78)
        print(title)
        print("=" * 78)
        run(filename)
        print()
    print("=" * 78)
    print("A 64-128-128-10 MLP on the bundled handwritten digits (examples/mlp_digits.py)")
    print("=" * 78)
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from mlp_digits import train

    acc = train(epochs=15)
    print(f"final test accuracy: {acc:.4f}")


if __name__ == "__main__":
    main()
