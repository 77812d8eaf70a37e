"""Helpers shared by the tests (not test modules): imported as ``tests.support.NAME``."""
