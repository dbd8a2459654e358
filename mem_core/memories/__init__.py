"""mem_core/memories"""
