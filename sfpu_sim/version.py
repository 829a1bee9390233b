"""The package version (a leaf: what reports, summaries and caches stamp themselves with)."""
__version__ = "0.1.0"
