"""Put tests/ on ``sys.path`` so that test modules can ``from chunking import chunkings``."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
