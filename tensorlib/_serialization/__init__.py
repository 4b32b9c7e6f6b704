"""The machinery behind ``tensorlib.save`` and ``tensorlib.load`` (PyTorch's zip checkpoint format).

- ``archive``: writes and reads the zip container (stored records, 64-byte aligned data, zip64 when needed).
- ``names``: the globals a checkpoint may name, and what each one becomes in tensorlib.
- ``rebuild``: builds tensors from the records a checkpoint describes, checking every field first.
- ``unpickler``: the weights-only unpickler, an opcode interpreter that never imports or calls anything
  outside its allowlist.
- ``writer``: pickles an object with tensors as references to raw storages, in PyTorch's names.
"""
