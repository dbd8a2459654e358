"""mem_core/js"""
