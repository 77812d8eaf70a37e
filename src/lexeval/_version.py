"""The package version, read by the build (setuptools) and written into every signature."""

__version__ = "0.1.0"
