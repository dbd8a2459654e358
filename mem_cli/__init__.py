"""mem_cli — the ``mem`` command line: thin typer commands over the mem_core API."""
