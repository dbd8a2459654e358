"""Assistant adapters: wiring ``mem`` into one coding assistant each."""
