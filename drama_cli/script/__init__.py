"""Scripts: the data model, the YAML and Fountain readers, the direction grammar and chunking."""
