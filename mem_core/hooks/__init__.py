"""Lifecycle hooks of the coding assistants: ``mem hook <event> --assistant
<name>`` (docs/brief.md).

* :mod:`~mem_core.hooks.formats` — the events, their aliases, and what each
  assistant expects on stdout;
* :mod:`~mem_core.hooks.runner` — :func:`run_hook`: fail open, a watchdog,
  the project from the hook's ``cwd``;
* :mod:`~mem_core.hooks.prompt` — the recall for a prompt, above a relevance
  floor, within a budget;
* :mod:`~mem_core.hooks.session` — the first prompt of a session, for its
  journal event.

What a hook that fails open says goes to the bounded hooks log
(:mod:`mem_core.files.hookslog`), which a brief refresh writes too.

Nothing is imported here: import the module you need.
"""
