"""Rendering on a Ray cluster (`drama render --cluster`).

`address` reads the `--cluster` value (no Ray needed); `clips` ships reference clips as bytes;
`worker` is the Ray actor that holds one backend; `pool` connects to Ray and keeps the actors,
one per `slot`; `batch` is the `StreamBatch` that hands streams to the actors and sends again
those of a worker that died; `backend` is the `Backend` the render layer drives. Ray is
imported on first use inside functions, so only when `--cluster` is given.
"""
