"""Command line of wave_gpu: `python -m wave_gpu info` and `python -m wave_gpu selftest`."""

from wave_gpu._cli import main

raise SystemExit(main())
