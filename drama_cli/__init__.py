"""drama: direct scripted voice performances with Fish Audio Drama 3."""

__version__ = "0.1.0"
