"""A small training script as a user writes it: type checkers must accept it and infer Tensor.

``tests/typing/test_static.py`` runs ``mypy --strict`` and ``pyright`` on this file;
``reveal_type`` lines say what they must infer; the test also runs it.
"""

from __future__ import annotations

import tensorlib as torch
import tensorlib.nn.functional as F
from tensorlib import Tensor, nn, optim
from typing_extensions import reveal_type


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x: Tensor) -> Tensor:
        out: Tensor = self.fc2(F.relu(self.fc1(x)))  # Module.__call__ returns Any, as in torch
        return out


def train_step(model: Net, opt: optim.SGD, x: Tensor, y: Tensor) -> float:
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    y = torch.randint(0, 3, (16,))
    model = Net()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        train_step(model, opt, x, y)

    a = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    c = (a + b) * 2 - a / 3
    s = c.sum(dim=1)
    m = a @ b.T
    e = torch.exp(a).mean()
    idx = a[0, 1:]
    z = torch.zeros_like(a).add_(1.5)
    w = a.reshape(3, 2).transpose(0, 1).unsqueeze(0)
    g = torch.autograd.grad(e, a)
    with torch.no_grad():
        z.mul_(2)
    d: torch.dtype = a.dtype
    n = torch.linalg.norm(a)
    r = torch.special.expit(a)
    reveal_type(c)  # Tensor
    reveal_type(s)  # Tensor
    reveal_type(m)  # Tensor
    reveal_type(e)  # Tensor
    reveal_type(idx)  # Tensor
    reveal_type(z)  # Tensor
    reveal_type(w)  # Tensor
    reveal_type(n)  # Tensor
    reveal_type(r)  # Tensor
    reveal_type(a.shape)  # Size
    reveal_type(g)  # tuple
    print(d, s.shape, m.shape, idx, w.shape, float(e))


if __name__ == "__main__":
    main()
