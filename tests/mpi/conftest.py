import sys
from pathlib import Path

# The harness is imported by name from every MPI test module.
sys.path.insert(0, str(Path(__file__).parent))
