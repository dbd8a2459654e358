"""mem_plugins/adapters"""
