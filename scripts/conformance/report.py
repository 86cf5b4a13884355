"""Adds up the result files of a conformance run, checks the failures against the allowed ones in
docs/compatibility.md, prints them and the summary line, and exits 1 when any other test failed.

Usage: report.py <docs/compatibility.md> <result.json>...
"""

import json
import re
import sys


def allowed_failures(compatibility_md):
    """`(file, test name)` pairs from the `Allowed failures:` lines of docs/compatibility.md."""
    allowed = set()
    with open(compatibility_md, encoding="utf-8") as f:
        for line in f:
            if line.startswith("Allowed failures:"):
                for item in re.findall(r"`([^`]+)`", line):
                    path, _, name = item.partition("::")
                    if not name:
                        raise SystemExit(f"{compatibility_md}: {item!r} is not <file>::<test name>")
                    allowed.add((path, name))
    return allowed


def is_allowed(test_id, allowed):
    path, _, rest = test_id.partition("::")
    return (path, rest.split("::")[-1]) in allowed


def main(compatibility_md, result_files):
    allowed = allowed_failures(compatibility_md)
    results, broken_runs, log_of = {}, [], {}
    for file in result_files:
        log = re.sub(r"\.json$", ".log", file)
        try:
            with open(file, encoding="utf-8") as f:
                run = json.load(f)
        except (OSError, ValueError):
            broken_runs.append(log)
            continue
        results.update(run["results"])
        log_of.update((test_id, log) for test_id in run["results"])
        # 0: passed, 1: some failed, 5: nothing selected (-k); anything else: pytest itself broke
        if run["exitstatus"] not in (0, 1, 5):
            broken_runs.append(log)

    count = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    unexpected, tolerated, now_passing = [], [], []
    for test_id, result in sorted(results.items()):
        outcome = result["outcome"]
        count[outcome] += 1
        if outcome in ("failed", "error"):
            (tolerated if is_allowed(test_id, allowed) else unexpected).append((outcome, test_id, result["message"]))
        elif outcome == "passed" and is_allowed(test_id, allowed):
            now_passing.append(test_id)

    # pytest's own report (short tracebacks) of every run with a failure nobody allowed
    for log in sorted({log_of[test_id] for _, test_id, _ in unexpected} | set(broken_runs)):
        print(f"----- {log} -----")
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                print(f.read().rstrip())
        except OSError:
            print("(no output)")
    for outcome, test_id, message in tolerated:
        print(f"allowed  {outcome.upper():7s} {test_id} (docs/compatibility.md)")
    for test_id in now_passing:
        print(f"note     {test_id} passes although docs/compatibility.md allows it to fail")
    for outcome, test_id, message in unexpected:
        print(f"{outcome.upper():8s} {test_id} :: {message}")
    for log in broken_runs:
        print(f"BROKEN   no complete result from the run logged in {log}")
    print(f"conformance skipped: {count['skipped']} (white-box tests, or skipped by the test files themselves)")
    total = count["passed"] + count["failed"] + count["error"]
    print(f"conformance: {count['passed']} passed, {count['failed']} failed, {count['error']} errors of {total}")
    return 1 if unexpected or broken_runs or total == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
