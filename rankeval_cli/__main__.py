"""``python -m rankeval_cli``: the same as the ``rankeval`` command."""

from .entry import main

main()
