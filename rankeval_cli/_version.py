"""The one version string of rankeval-cli."""

__version__ = "1.0.0"
