"""mem_plugins/sources"""
