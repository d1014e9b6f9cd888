"""``python -m raf`` runs the command line."""

import sys

from raf.cli import main

sys.exit(main())
