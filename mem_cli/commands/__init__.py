"""One module per group of commands; each has ``register(app)``."""
