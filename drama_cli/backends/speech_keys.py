"""API keys for speech servers: read from an environment variable or a keyring entry, never
from a file or a command-line value, and held so that nothing writes them.

`ApiKey` shows only where it came from (its repr and str), refuses to be pickled (so it never
travels in a record, a take or a Ray message: a worker looks the key up itself) and gives its
value only through `reveal()`, which the transport calls to build the Authorization header.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

KEYRING_SERVICE = "drama"


class ApiKey:
    """A secret API key and where it came from (`source`: `$NAME` or `keyring SERVICE/USER`).

    repr and str show the source only; pickling raises TypeError; `reveal()` gives the value."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str):
        self._value = value
        self.source = source

    def reveal(self) -> str:
        """The key itself, for the Authorization header and for scrubbing messages."""
        return self._value

    def __repr__(self) -> str:
        return f"ApiKey(from {self.source})"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("an API key is never pickled or written; look it up where it is used")


def find_api_key(
    env_var: str,
    keyring_user: str | None = None,
    *,
    keyring_service: str = KEYRING_SERVICE,
    environ: Mapping[str, str] | None = None,
) -> ApiKey | None:
    """The API key from the environment variable `env_var`, else from the keyring entry
    (`keyring_service`, `keyring_user`) when `keyring_user` is given and the optional `keyring`
    package is installed, else None. A variable set to blanks counts as unset. `environ`:
    the environment to read (default `os.environ`)."""
    value = (os.environ if environ is None else environ).get(env_var, "").strip()
    if value:
        return ApiKey(value, f"${env_var}")
    if keyring_user is None:
        return None
    try:
        import keyring  # optional: keyring, for keys kept in the system's keychain
    except ImportError:
        return None
    try:
        stored = keyring.get_password(keyring_service, keyring_user)
    except Exception:  # a locked or absent keychain backend: no key from there
        return None
    if stored and stored.strip():
        return ApiKey(stored.strip(), f"keyring {keyring_service}/{keyring_user}")
    return None
