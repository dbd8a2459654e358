"""Plugins' commands: ``mem_register_commands(app)`` called one plugin at a
time, so that one failing plugin leaves out only its own commands.

Apart from :mod:`mem_cli.app` so that ``mem plugins -d DIR`` can call the
hook for another project's plugins without importing the application it is
part of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mem_core.errors import MemError

if TYPE_CHECKING:
    import typer

    from mem_core.kernel import Kernel

__all__ = ["COMMANDS_HOOK", "add_plugin_commands"]

COMMANDS_HOOK = "mem_register_commands"


def _names(app: typer.Typer) -> list[str]:
    import typer

    return list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def add_plugin_commands(app: typer.Typer, kernel: Kernel) -> list[str]:
    """Add every plugin's commands to ``app`` through the relay; what failed
    (a hook that raised, a command whose name is taken) is left out, reported
    to the kernel as broken, and returned one line each."""
    broken = []
    pm = kernel.pm
    impls = getattr(pm.hook, COMMANDS_HOOK).get_hookimpls()
    plugins = [impl.plugin for impl in impls]
    for impl in impls:
        caller = pm.subset_hook_caller(COMMANDS_HOOK, remove_plugins=[p for p in plugins if p is not impl.plugin])
        before = (len(app.registered_commands), len(app.registered_groups))
        known = len(_names(app))
        try:
            caller(app=app, context=kernel.context())
            added = len(app.registered_commands) + len(app.registered_groups) - sum(before)
            if len(_names(app)) != known + added:
                raise MemError("it adds a command whose name is already taken")
        except Exception as exc:
            del app.registered_commands[before[0] :]
            del app.registered_groups[before[1] :]
            broken.append(f"plugin '{impl.plugin_name}' failed in {COMMANDS_HOOK}: {exc}")
            why = exc if isinstance(exc, MemError) else f"{type(exc).__name__}: {exc}"
            kernel.report_failure(impl.plugin_name, f"{COMMANDS_HOOK}: {why}")
    return broken
