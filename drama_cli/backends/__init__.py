"""Backends that turn a compiled request into take audio.

`base` holds the contract (`Backend`, `Capabilities`, `GenerationRequest`, `Generation`),
`registry` the backends `--engine` can name and `make_backend`; `scratch` and `drama3` are the
backends themselves; `cluster` runs them on Ray workers (`drama render --cluster`).
"""
