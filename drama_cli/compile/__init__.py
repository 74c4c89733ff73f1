"""Compile: a scene's lines into Drama 3 conversations, the compile modes and token costs."""
