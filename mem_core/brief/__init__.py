"""The token budget of the session brief and of the context summary
(docs/brief.md).

* :mod:`~mem_core.brief.tokens` — :func:`estimate_tokens`, the estimate every
  budget is counted in;
* :mod:`~mem_core.brief.budget` — :func:`fit`: what fits, what is cut, and
  the last line counting it.

The brief itself is an action, above the kernel: :mod:`mem_core.api.brief`
(:func:`brief` and :func:`write_brief`, ``mem brief [--write]``) and
:mod:`mem_core.api.refresh` (:func:`refresh_brief`, called by ``mem write``
and ``mem remember`` when the brief file exists).

Nothing is imported here: import the module you need.
"""
