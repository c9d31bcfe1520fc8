"""Every Python example of the documentation runs, and prints what its comments say.

The pages are README.md and every Markdown file under docs/. Each fenced ```python block runs,
the blocks of one page in order in one namespace (as a reader would type them), in a temporary
working directory that holds the small programs the wasmgpu examples open (`worker.wasm`,
`summarize.wasm`, built from tests/fixtures/wasi). wave_gpu calls without `device=` run on the
emulator here (WAVE_GPU_DEVICE=emulator), so the examples need no GPU.

A line `print(...)  # TEXT` states what it prints: the printed line must equal TEXT, where
`...` in TEXT stands for any text. A block preceded by `<!-- example: not run ... -->` is left
out; the comment must say why (and where it is tested instead, if anywhere).

The environment-variable page is checked here too: it must name every WAVESTACK_*, WAVE_* and
CUDECOMP_* variable that the code reads.
"""

from __future__ import annotations

import builtins
import linecache
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
# The programs the wasmgpu examples open, by the name they use: the fixture each is built from.
EXAMPLE_PROGRAMS = {"worker.wasm": "readme_worker_reactor.wasm", "summarize.wasm": "embedded_input.wasm"}
NOT_RUN = re.compile(r"<!--\s*example:\s*not run\b(.*?)-->", re.S)
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
EXPECTED_PRINT = re.compile(r"^\s*print\(.*\)\s*#\s?(.*?)\s*$")


@dataclass
class Example:
    page: Path
    line: int  # of the first code line in the page
    code: str
    skip_reason: str | None


def examples_of(page: Path) -> list[Example]:
    text = page.read_text()
    examples = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip().splitlines()
        marker = NOT_RUN.fullmatch(before[-1].strip()) if before else None
        reason = marker.group(1).strip(" :()") if marker else None
        line = text.count("\n", 0, match.start(1)) + 1
        examples.append(Example(page, line, match.group(1), reason if marker else None))
    return examples


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


PAGES_WITH_EXAMPLES = [page for page in PAGES if examples_of(page)]


def expected_lines(code: str) -> dict[int, str]:
    """Line number in the block -> the text its print must output."""
    return {number: match.group(1) for number, line in enumerate(code.splitlines(), 1)
            if (match := EXPECTED_PRINT.match(line))}


def matches(expected: str, printed: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, printed) is not None


def built_fixture(name: str) -> Path | None:
    for folder in sorted((ROOT / "build").glob("*/fixtures/wasi")):
        if (folder / name).exists():
            return folder / name
    return None


@pytest.fixture
def example_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WAVE_GPU_DEVICE", "emulator")
    monkeypatch.setenv("WAVESTACK_PROGRESS", "off")
    return tmp_path


def provide_programs(code: str, directory: Path) -> None:
    for name, fixture in EXAMPLE_PROGRAMS.items():
        if name in code:
            source = built_fixture(fixture)
            if source is None:
                pytest.fail(f"{name} needs build/*/fixtures/wasi/{fixture}: run `make build` (wasi-libc and "
                            "clang build the fixtures)", pytrace=False)
            shutil.copyfile(source, directory / name)


def run_example(example: Example, namespace: dict, index: int) -> None:
    filename = f"<{page_id(example.page)}:{example.line}>"
    # Registered with linecache so that wave_gpu's frontend (inspect.getsource) reads the
    # kernels' source, as from a file.
    linecache.cache[filename] = (len(example.code), None, example.code.splitlines(True), filename)
    printed: dict[int, list[str]] = {}
    real_print = builtins.print

    def recording_print(*args, sep=" ", end="\n", file=None, flush=False):
        frame = sys._getframe(1)
        if file is None and frame.f_code.co_filename == filename:
            printed.setdefault(frame.f_lineno, []).append(sep.join(str(arg) for arg in args))
        real_print(*args, sep=sep, end=end, file=file, flush=flush)

    namespace["print"] = recording_print
    try:
        exec(compile(example.code, filename, "exec"), namespace)
    except Exception as error:
        raise AssertionError(f"{page_id(example.page)}, example {index} (line {example.line}) raised "
                             f"{type(error).__name__}: {error}") from error
    for number, expected in expected_lines(example.code).items():
        where = f"{page_id(example.page)} line {example.line + number - 1}"
        assert number in printed, f"{where}: the print never ran (expected {expected!r})"
        for text in printed[number]:
            assert matches(expected, text), f"{where}: printed {text!r}, the comment says {expected!r}"


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=page_id)
def test_every_example_of_the_page_runs_and_prints_what_it_says(page, example_directory, run_log):
    namespace: dict = {"__name__": "__doc_example__"}
    ran = left_out = 0
    for index, example in enumerate(examples_of(page), 1):
        if example.skip_reason is not None:
            assert example.skip_reason, f"{page_id(page)} line {example.line}: 'not run' needs a reason"
            left_out += 1
            continue
        provide_programs(example.code, example_directory)
        run_example(example, namespace, index)
        ran += 1
    run_log(f"{ran} examples ran, {left_out} left out (marked not run)")
    assert ran or left_out


def test_the_example_checker_catches_a_wrong_comment(example_directory):
    example = Example(ROOT / "README.md", 1, "print(1 + 1)  # 3\n", None)
    with pytest.raises(AssertionError, match="printed '2', the comment says '3'"):
        run_example(example, {}, 1)


def test_the_example_checker_reports_an_example_that_raises(example_directory):
    example = Example(ROOT / "README.md", 1, "raise ValueError('broken')\n", None)
    with pytest.raises(AssertionError, match="raised ValueError: broken"):
        run_example(example, {}, 1)


def variables_the_code_reads() -> set[str]:
    """Every name the code passes to getenv/os.environ: string literals that are exactly a
    WAVESTACK_*, WAVE_* or CUDECOMP_* name (a name built at run time, as WAVESTACK_REQUIRE_{what},
    is not seen), less the code's own constants of that shape."""
    literal = re.compile(r"[\"']((?:WAVESTACK|WAVE|CUDECOMP)_[A-Z0-9_]*[A-Z0-9])[\"']")
    # A constant of the code, not a variable: a C++ enumerator `NAME = number,` (the fault
    # codes that wave_gpu's cpu code generator writes into its C++ by name).
    constant = re.compile(r"\b((?:WAVESTACK|WAVE|CUDECOMP)_[A-Z0-9_]*[A-Z0-9]) = \d+(?:,|\n)")
    names, constants = set(), set()
    for folder in ("src", "python", "scripts", "tests", "bench", "examples"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".cpp", ".hpp", ".h", ".c", ".cu"} and path.is_file():
                text = path.read_text(errors="replace")
                names.update(literal.findall(text))
                if path.suffix in {".cpp", ".hpp"}:
                    constants.update(constant.findall(text))
    return names - constants


def test_the_environment_page_names_every_variable_the_code_reads():
    page = (DOCS / "environment.md").read_text()
    documented = set(re.findall(r"`((?:WAVESTACK|WAVE|CUDECOMP)_[A-Z0-9_]+)", page))
    missing = sorted(variables_the_code_reads() - documented)
    assert not missing, f"docs/environment.md lacks {missing}"


def undocumented_public_names() -> list[str]:
    """Names in each package's __all__ (classes and functions) and public methods and properties
    of those classes that have no docstring: the API reference would show them bare."""
    import enum
    import inspect

    import cudecomp
    import wasmgpu
    import wave_gpu

    missing = []
    for package in (wave_gpu, wasmgpu, cudecomp):
        for name in package.__all__:
            item = getattr(package, name)
            if name.startswith("__") or not (inspect.isclass(item) or callable(item)):
                continue
            if not inspect.getdoc(item):
                missing.append(f"{package.__name__}.{name}")
            if inspect.isclass(item) and not issubclass(item, enum.Enum):
                for member_name, member in vars(item).items():
                    if member_name.startswith("_"):
                        continue
                    function = getattr(member, "__func__", member)
                    if (callable(function) or isinstance(member, property)) and not function.__doc__:
                        missing.append(f"{package.__name__}.{name}.{member_name}")
    return missing


def test_every_public_function_and_class_has_a_docstring():
    assert undocumented_public_names() == []
