"""mem_plugins/stores"""
