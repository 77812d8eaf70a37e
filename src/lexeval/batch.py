"""Kept for old imports: the batch scoring of records lives in :mod:`lexeval.run.batch`.

>>> from lexeval.batch import score_records
>>> score_records.__module__
'lexeval.run.batch'
"""

from __future__ import annotations

from lexeval.run.batch import *  # noqa: F403 - the same names, from one list
from lexeval.run.batch import __all__ as __all__
