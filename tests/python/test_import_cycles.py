"""No module of python/ or bench/ imports itself back through others: each package's modules
form layers (values and types at the bottom, the compiler in the middle, the decorator and
launch on top), so any of them can be read, imported and tested without the ones above it.

The imports are read from the sources (every `import` and `from ... import`, at module level
or inside functions, since a deferred import is still a dependency); a cycle fails the test
with its modules named."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each package's C++ extension (src/bindings/CMakeLists.txt names it _native): a module without
# a .py source, at the bottom of every package.
EXTENSION_MODULE = "_native"


def module_files(folder: Path) -> dict[str, Path]:
    """Module name -> file, for every .py file under `folder` (a package's __init__.py is the
    package itself)."""
    modules = {}
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` imports. `from package import name` counts
    as importing the submodule when there is one (the extension module: none of the .py
    files), else the package itself."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if alias.name != EXTENSION_MODULE:
                    found.add(submodule if submodule in modules else base)
    return {module for module in found if module in modules and module != name}


def import_cycles(folder: Path) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), sorted."""
    modules = module_files(folder)
    edges = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    order, lowest, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in order:
                visit(target)
                lowest[module] = min(lowest[module], lowest[target])
            elif target in on_stack:
                lowest[module] = min(lowest[module], order[target])
        if lowest[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in order:
            visit(module)
    return sorted(groups)


@pytest.mark.parametrize("folder", ["python", "bench"])
def test_no_module_imports_itself_back(folder):
    cycles = import_cycles(ROOT / folder)
    assert not cycles, f"import cycles in {folder}/: " + "; ".join(" <-> ".join(group) for group in cycles)


def test_the_check_finds_a_cycle(tmp_path):
    """The check itself: two modules of a package importing each other (one of them inside a
    function) are reported, and a one-way import is not."""
    package = tmp_path / "layers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bottom.py").write_text("def helper():\n    from layers.top import run\n    return run\n")
    (package / "top.py").write_text("from . import bottom\n\ndef run():\n    return bottom\n")
    (package / "alone.py").write_text("from layers import bottom\n")
    assert import_cycles(tmp_path) == [["layers.bottom", "layers.top"]]
