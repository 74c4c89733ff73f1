"""Casting: voices added to the library, designed voices auditioned and locked, and library
voices proposed for a cast."""
