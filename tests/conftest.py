"""Shared by every test folder: the `run_log` fixture, through which a test reports what it ran
(fuzzer seeds, counts, rates) in a section at the end of the session's output.

Printing from a test does not reach the terminal when pytest-xdist runs tests in worker
processes (`make test` does), so the lines travel with the test's report (its
user_properties) to the controlling process, which prints them in the terminal summary and
writes them to the JUnit XML as properties.
"""

import pytest

_RUN_LOG = "run log"
_collected = []


@pytest.fixture
def run_log(request):
    """run_log(line): reports `line` in the session's "what the tests ran" section."""

    def log(line: str) -> None:
        request.node.user_properties.append((_RUN_LOG, line))

    return log


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == _RUN_LOG:
            _collected.append(f"{report.nodeid}: {value}")


def pytest_terminal_summary(terminalreporter):
    if _collected:
        terminalreporter.section("what the tests ran")
        for line in _collected:
            terminalreporter.write_line(line)
