"""A tiny cache whose contract the demo's lesson "Cache contract" describes."""

from .core import Cache

__all__ = ["Cache"]
