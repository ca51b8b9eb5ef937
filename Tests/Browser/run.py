"""Runs the browser tests with unittest and ends with the names of the failed tests and one summary line.

    python Tests/Browser/run.py                 # every test_*.py here
    python Tests/Browser/run.py -k WebPush      # only tests whose id contains a pattern (unittest's -k)

Exit status 0 only when at least one test ran and none failed, errored or was skipped (CI installs everything).
"""

import argparse
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", dest="patterns", action="append", default=[], help="only tests whose id contains this")
    arguments = parser.parse_args()
    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    if arguments.patterns:
        loader.testNamePatterns = [f"*{p}*" for p in arguments.patterns]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    started = time.monotonic()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = [test.id() for test, _ in result.failures + result.errors + result.unexpectedSuccesses
              if hasattr(test, "id")]
    failed += [str(test) for test in result.unexpectedSuccesses if not hasattr(test, "id")]
    skipped = [test.id() for test, _ in result.skipped]
    passed = result.testsRun - len(failed) - len(skipped)
    print()
    for name in failed:
        print(f"FAILED: {name}")
    for name in skipped:
        print(f"SKIPPED (not allowed in CI): {name}")
    print(f"browser tests took {time.monotonic() - started:.1f}s")
    print(f"browser: {passed} passed, {len(failed)} failed" + (f", {len(skipped)} skipped" if skipped else ""))
    sys.exit(0 if result.testsRun > 0 and not failed and not skipped else 1)


if __name__ == "__main__":
    main()
