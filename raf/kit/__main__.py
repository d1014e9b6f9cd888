"""``python -m raf.kit node [--output FILE|-] [--force]`` writes raf's Node.js kit."""

import sys

from raf.kit import main

sys.exit(main())
