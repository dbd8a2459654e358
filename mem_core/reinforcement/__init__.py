"""mem_core/reinforcement"""
