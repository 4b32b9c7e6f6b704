"""Seed 002, "Extending torch with a Tensor wrapper type": MetadataTensor propagates metadata through ops."""

import tensorlib as torch


class MetadataTensor(object):
    def __init__(self, data, metadata=None, **kwargs):
        self._t = torch.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return "Metadata:\n{}\n\ndata:\n{}".format(self._metadata, self._t)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        args = [a._t if hasattr(a, '_t') else a for a in args]
        ret = func(*args, **kwargs)
        return MetadataTensor(ret, metadata=self._metadata)


def main():
    metadata = {'owner': 'Ministry of Silly Walks'}
    m = MetadataTensor([[1, 2], [3, 4]], metadata=metadata)
    t = torch.tensor([[1, 2], [1, 2]])  # the seed has a stray ']' here
    print(torch.add(t, m))
    print(torch.mul(t, m))


if __name__ == "__main__":
    main()
