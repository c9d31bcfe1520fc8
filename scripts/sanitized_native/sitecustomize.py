"""Loaded at start-up through PYTHONPATH by scripts/check_sanitizers.sh: makes
``import wasmgpu._native`` load the ASan+UBSan build named by WAVESTACK_SANITIZED_NATIVE instead
of the editable install's module. A finder in front of sys.meta_path (the editable install's
own finder would otherwise map the name to build/py); worker processes inherit PYTHONPATH and
the variable, so they load it too."""

import importlib.machinery
import importlib.util
import os
import sys

_PATH = os.environ.get("WAVESTACK_SANITIZED_NATIVE")


class _SanitizedNative:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "wasmgpu._native":
            return None
        loader = importlib.machinery.ExtensionFileLoader(name, _PATH)
        return importlib.util.spec_from_file_location(name, _PATH, loader=loader)


if _PATH:
    sys.meta_path.insert(0, _SanitizedNative)
