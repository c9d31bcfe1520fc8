"""Helpers of the wave_gpu tests: a fresh seed per run (printed, overridable with
WAVE_TEST_SEED) and the emulator selected explicitly (CI has a software GPU detected)."""

import os
import secrets

import numpy as np


def make_rng(request) -> np.random.Generator:
    base = int(os.environ.get("WAVE_TEST_SEED", secrets.randbits(32)))
    seed = (base + sum(map(ord, request.node.name))) % 2**32
    print(f"{request.node.name}: seed {seed} (WAVE_TEST_SEED={base})")
    return np.random.default_rng(seed)
