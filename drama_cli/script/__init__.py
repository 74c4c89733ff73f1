"""Scripts: the data model, the YAML and Fountain readers and the direction grammar."""
