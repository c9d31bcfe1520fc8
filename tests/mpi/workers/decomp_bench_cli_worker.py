"""Runs `python -m cudecomp bench` in-process (the CLI's main) on a small grid."""

import sys

from cudecomp.__main__ import main

sys.exit(main(["bench", "--gdims", "16", "12", "10", "--pdims", *sys.argv[1:3], "--iterations", "2", "--warmup",
               "1", *sys.argv[3:]]))
