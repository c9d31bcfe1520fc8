"""src/wasm's folders include only the folders below them, as each folder's CMakeLists.txt
says (module/ at the bottom; decode/ and validate/ over it; wasi/ over it and the device code;
load/ over those; instances/ over all of them), so a folder can be read and built knowing only
what it may include."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WASM = ROOT / "src" / "wasm"

# Each folder and the folders of src/wasm its files may include besides their own.
MAY_INCLUDE = {
    "module": set(),
    "decode": {"module"},
    "validate": {"module"},
    "device": set(),
    "wasi": {"module", "device"},
    "load": {"module", "decode", "validate", "wasi"},
    "instances": {"module", "load", "wasi", "device"},
}
INCLUDE = re.compile(r'#include "wasm/([a-z_0-9]+)/')


def included_folders(folder: Path) -> dict[str, set[str]]:
    """File name -> the src/wasm folders it includes (other than its own)."""
    found = {}
    for path in sorted(folder.iterdir()):
        if path.suffix in {".cpp", ".hpp", ".glsl"}:
            found[path.name] = set(INCLUDE.findall(path.read_text())) - {folder.name}
    return found


def test_src_wasm_has_no_file_outside_its_folders():
    loose = sorted(path.name for path in WASM.iterdir() if path.is_file() and path.name != "CMakeLists.txt")
    assert not loose, f"files directly in src/wasm (put each in the folder of its concern): {loose}"


def test_every_folder_includes_only_the_folders_below_it():
    for name, allowed in MAY_INCLUDE.items():
        for file, folders in included_folders(WASM / name).items():
            assert folders <= allowed, f"src/wasm/{name}/{file} includes {sorted(folders - allowed)}"


def test_every_folder_says_what_it_owns_and_may_include():
    for name in MAY_INCLUDE:
        listing = WASM / name / "CMakeLists.txt"
        assert listing.is_file(), f"src/wasm/{name} has no CMakeLists.txt"
        if name != "device":
            assert "May include" in listing.read_text(), f"src/wasm/{name}/CMakeLists.txt does not say what it may include"
