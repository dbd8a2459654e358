"""The portfolio: the projects one person works on, registered in the user
config directory (:mod:`mem_core.portfolio.registry`), and their combined
recall index (:mod:`mem_core.portfolio.combined`). The actions above the
kernel recall them together (``mem recall --scope all``,
:mod:`mem_core.api.portfolio`) and compare them for lessons worth moving
to the portfolio brain (:mod:`mem_core.api.proposals`).

Nothing here is imported by the five actions unless ``--scope all`` (or
``--scope portfolio`` without a brain set elsewhere) asks for it.
"""
