"""The default plugins of ``mem``: one module per plugin, registered from
:data:`mem_core.kernel.manager.DEFAULT_PLUGINS` exactly as third-party plugins are."""
