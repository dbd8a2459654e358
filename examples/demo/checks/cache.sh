# The Nexus task's check: the cache tests pass (run from the project directory).
PYTHONPATH=src python3 -m pytest -q tests/test_cache.py
