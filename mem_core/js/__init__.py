"""Node/V8 behaviour, so that ``mem`` reads and writes exactly what
``bmad-plus mem`` does: JSON text and key order (:mod:`~mem_core.js.jsonfmt`),
values and the one ``UNDEFINED`` (:mod:`~mem_core.js.values`), ``Number()``
(:mod:`~mem_core.js.numbers`) and ``String()`` of a number
(:mod:`~mem_core.js.numtext`), strings in UTF-16 units
(:mod:`~mem_core.js.strings`), ``Date.parse`` (:mod:`~mem_core.js.jsdate`;
mem's own ISO form without it, :mod:`~mem_core.js.isodate`),
``Math.log``/``Math.pow`` (:mod:`~mem_core.js.jsmath`) and records another
tool wrote (:mod:`~mem_core.js.record`).

Nothing is imported here: each caller imports the module it needs.
"""
