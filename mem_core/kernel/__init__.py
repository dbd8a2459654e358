"""mem_core/kernel"""
