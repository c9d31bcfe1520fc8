"""``python -m wasmgpu``: see wasmgpu.cli."""

import sys

from wasmgpu.cli import main

sys.exit(main())
