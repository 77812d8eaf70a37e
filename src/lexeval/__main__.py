"""``python -m lexeval`` runs the command line."""

import sys

from lexeval.cli import main

sys.exit(main())
