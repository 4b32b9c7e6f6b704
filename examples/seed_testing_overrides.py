"""Seed 002, "Testing Coverage of Overrides": list overridable functions and their testing signatures."""

import inspect

import tensorlib as torch


def main():
    from tensorlib._overrides import get_overridable_functions
    func_dict = get_overridable_functions()
    nn_funcs = func_dict[torch.nn.functional]
    print([f.__name__ for f in nn_funcs[:5]])  # the seed is missing a ']' here

    from tensorlib._overrides import get_testing_overrides
    override_dict = get_testing_overrides()
    dummy_add = override_dict[torch.add]
    print(inspect.signature(dummy_add))

    from tensorlib._overrides import get_ignored_functions
    ignored = get_ignored_functions()
    print(torch.zeros in ignored, torch.add in ignored)


if __name__ == "__main__":
    main()
