"""pytest plugin (`-p nbserve_conformance`): makes this directory's launchnotebook.py the
`notebook.tests.launchnotebook` that Notebook 6.4's REST tests import, and writes every test's
outcome to the JSON file named by $CONFORMANCE_RESULT for scripts/conformance/report.py."""

import importlib.util
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))


def _install_launchnotebook():
    import notebook  # Debian's python3-notebook: the tests and their client helpers

    package = sys.modules.get("notebook.tests")
    if package is None:
        package = types.ModuleType("notebook.tests")
        package.__path__ = []
        sys.modules["notebook.tests"] = package
        notebook.tests = package
    spec = importlib.util.spec_from_file_location(
        "notebook.tests.launchnotebook", os.path.join(HERE, "launchnotebook.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["notebook.tests.launchnotebook"] = module
    spec.loader.exec_module(module)
    package.launchnotebook = module


_install_launchnotebook()

# "<file under notebook/services/>::<Class>::<test>" -> {"outcome": ..., "message": ...}
_results = {}


def _test_id(report):
    """`contents/tests/test_contents_api.py::APITest::test_copy`: the file under notebook/services/."""
    # the files live outside the rootdir: their node ids lack the path, their location has it
    parts = report.location[0].split("/")
    if "services" in parts:
        parts = parts[parts.index("services") + 1:]
    name = report.nodeid.split("::", 1)[1] if "::" in report.nodeid else report.nodeid
    return "/".join(parts) + "::" + name


def _message(report):
    if isinstance(report.longrepr, tuple):  # a skip: (file, line, reason)
        return str(report.longrepr[2])
    lines = (report.longreprtext or "").strip().splitlines()
    first_error = next((line for line in lines if line.startswith("E ")), None)
    return (first_error or (lines[-1] if lines else "")).strip()[:300]


def pytest_runtest_logreport(report):
    test_id = _test_id(report)
    current = _results.get(test_id, {}).get("outcome")
    if report.when == "call":
        outcome = "passed" if report.passed else "failed" if report.failed else "skipped"
    elif report.failed:  # setup or teardown
        outcome = "error"
    elif report.skipped and report.when == "setup":
        outcome = "skipped"
    else:
        return
    if current == "error" or (current == "failed" and outcome != "error"):
        return  # keep the worst outcome of setup, call and teardown
    _results[test_id] = {"outcome": outcome, "message": _message(report) if outcome != "passed" else ""}


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("CONFORMANCE_RESULT")
    if target:
        with open(target, "w", encoding="utf-8") as f:
            json.dump({"exitstatus": int(exitstatus), "results": _results}, f, indent=1)
