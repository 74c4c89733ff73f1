"""The embedded Drama 3 inference engine: tokenizer, model, codec, sampling, generation."""
