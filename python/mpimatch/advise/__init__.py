"""Choosing the engine: the matching profiler, the classifier, `mpimatch advise` and `mpimatch train` (docs/advise.md)."""
