"""Human keys (structured-memory.md, Trust): the proof of a human that an
agent running commands does not have.

* :mod:`~mem_core.humans.keys` — Ed25519 key pairs: the private key encrypted
  with a passphrase in the user config directory, the public keys a project
  (``.bmad/memory/humans/<name>.pub``) or the user trusts;
* :mod:`~mem_core.humans.terminal` — the prompts, on the terminal device
  itself (``/dev/tty``), never on stdin.

Nothing here is imported on the five actions' path; ``cryptography`` is
imported only when a key is made, unlocked or a signature checked.
"""
