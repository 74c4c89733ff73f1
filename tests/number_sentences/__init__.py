"""Per-language tables of number expressions in sentences, for tests/test_number_sentences.py."""
