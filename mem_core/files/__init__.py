"""mem_core/files"""
