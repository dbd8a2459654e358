"""mem_core/evidence"""
