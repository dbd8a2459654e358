"""The bodies of the five actions: call one mem_core function, render text or
JSON. No typer here — :mod:`mem_cli.main` calls these directly, and the typer
commands in :mod:`mem_cli.commands` call them too."""
