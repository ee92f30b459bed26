"""rlm-recursive: Recursive Language Model runner."""

__version__ = "0.1.0"
__all__ = ["__version__"]
