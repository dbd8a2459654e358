"""The actions: the functions each command, the MCP tools and the server call.

Above the kernel: each module here takes a :class:`~mem_core.kernel.Kernel`
(or builds one) and runs one action on the building blocks of the feature
packages below it (their formats, plugin interfaces and helpers), which
never import the kernel. Nothing is imported here: import the module you
need.
"""
