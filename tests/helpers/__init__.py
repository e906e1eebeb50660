"""Helpers shared by several test modules (a test module imports from here, never from another
test module). ``cli``: rankeval run in-process; ``conversion``: the reader tests' round trip and
error checks; ``commands``: the walk over every command rankeval lists; ``rankdcg_paper``: the
rankDCG paper's worked example. The slow obvious references live beside the tests as
``slow_*.py``, the contract's datasets and invocations in ``robust.py``."""
