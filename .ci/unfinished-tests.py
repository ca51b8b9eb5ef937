#!/usr/bin/env python3
"""Names the tests a Swift Testing log shows started and never ended (passed, failed or skipped).

Usage: unfinished-tests.py LOG. .ci/run calls it when a test command ran past its limit.
"""
import re
import sys

STARTED = re.compile(r'◇ Test (?:case passing .*? to )?"(?P<name>.+?)" started\.')
ENDED = re.compile(r'[✔✘↳➜] Test (?:case passing .*? to )?"(?P<name>.+?)" (?:with \d+ test cases? )?'
                   r'(?:passed|failed|skipped|recorded)')


def unfinished(lines):
    started, ended = {}, set()
    for line in lines:
        if match := STARTED.search(line):
            started.setdefault(match["name"], line.strip())
        elif match := ENDED.search(line):
            ended.add(match["name"])
    return [name for name in started if name not in ended]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        names = unfinished(log)
    for name in names:
        print(f"  still running: {name}")
    if not names:
        print("  (none: every test that started ended; the hang is outside a test, e.g. at exit)")
