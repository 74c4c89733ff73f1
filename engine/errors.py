"""Exception types of the engine layer (one exception type per concern; docs/internals/architecture.md)."""


class EngineError(Exception):
    """A generation request the engine cannot serve (bad prompt, bad parameters, bad state)."""


class CheckpointError(EngineError):
    """A model or codec checkpoint whose files, names, shapes or dtypes do not match the config."""


class AudioError(EngineError):
    """An audio file or array that cannot be read, resampled or encoded as asked."""
