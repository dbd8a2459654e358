"""The version of ``mem``: the one place it is written (the wheel's metadata
reads it from here, hatch's ``[tool.hatch.version]``). A leaf module, so
that the kernel and ``mem mcp`` can name it without importing the package's
API."""

__version__ = "0.2.0"
