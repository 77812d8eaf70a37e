"""lexeval's tests, in folders that mirror ``src/lexeval`` (``tests/metrics/test_mt.py`` tests
``lexeval.metrics.mt``); the top level holds the tests of top-level modules and the project-wide
ones (tests/test_layout.py states the rule). Every folder is a package, so two folders may hold
test files of the same name; helpers shared by tests live in ``tests.support``."""
