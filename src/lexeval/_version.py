"""The package version, read by hatchling and written into every signature."""

__version__ = "0.1.0"
