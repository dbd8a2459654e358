"""mem_plugins/rankers"""
