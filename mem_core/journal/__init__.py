"""mem_core/journal"""
