"""mem_plugins/signals"""
