"""mem_core/retrieval"""
