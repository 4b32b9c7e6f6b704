"""Autograd internals: grad mode, graph nodes, the engine, Function and gradcheck.

The public names live in :mod:`tensorlib.autograd`; this package is private so
that the tensor core can import the pieces it needs without import cycles.
"""
