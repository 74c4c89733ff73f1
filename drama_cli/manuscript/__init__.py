"""Manuscripts imported as scripts: a `.txt`, `.md` or `.epub` novel or play read into
chapters, its dialogue attributed to speakers, and the result written as a YAML book script or
as Fountain with its cast file (`drama import`)."""
