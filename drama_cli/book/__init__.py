"""Books: a rendered script assembled into ACX files per chapter, a retail sample and an M4B."""
