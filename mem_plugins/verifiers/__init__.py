"""mem_plugins/verifiers"""
