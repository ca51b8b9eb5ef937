#!/usr/bin/env bash
# The browser tests (issue 26): the web SDK, the inbox and the Web Push path in Debian's Chromium, driven by Playwright
# from PyPI in a venv under .build/ (nothing else is installed here; Chromium comes from README's set-up line).
#
#   .ci/browser-tests.sh                 # all of them
#   .ci/browser-tests.sh -k Inbox        # only tests whose id contains "Inbox"
#
# Writes a screenshot of the inbox with a decrypted message to .ci/artifacts/inbox.png and prints its path.
# Environment: CHROMIUM (default /usr/bin/chromium), BROWSER_TESTS_TIMEOUT (seconds, default 900),
# SECUREPUSH_BROWSER_KEEP=1 keeps each test's data directory, SECUREPUSH_BROWSER_VERBOSE=1 prints browser consoles.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "browser tests: $chromium is missing: install Debian's chromium (README's set-up line)" >&2
  exit 1
fi

echo "== browser tests: the CLI (swift build --product securepush; already built in CI)"
swift build --product securepush

venv=.build/browser-venv
requirements=Tests/Browser/requirements.txt
# A venv made from other requirements (or a broken one) is made again.
if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null || ! "$venv/bin/python" -c 'import playwright, cryptography' 2>/dev/null; then
  echo "== browser tests: a Python venv in $venv with $(tr '\n' ' ' <"$requirements")"
  rm -rf "$venv"
  python3 -m venv "$venv"
  timeout 600 "$venv/bin/pip" install --disable-pip-version-check -q -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi

mkdir -p .ci/artifacts
rm -f .ci/artifacts/inbox.png
echo "== browser tests: $("$chromium" --version 2>/dev/null || echo "$chromium"), $("$venv/bin/python" -m playwright --version)"
started=$(date +%s)
set +e
# The whole run is bounded (each test's own waits are too); timeout signals the runner's process group, which holds
# Chromium, Playwright's driver and every `securepush up` a test started (each test's cleanup stops its own too).
CHROMIUM="$chromium" PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
  timeout --kill-after=20 "${BROWSER_TESTS_TIMEOUT:-900}" "$venv/bin/python" Tests/Browser/run.py "$@"
status=$?
set -e
echo "== browser tests took $(( $(date +%s) - started ))s"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "== browser tests TIMED OUT after ${BROWSER_TESTS_TIMEOUT:-900}s (the last test named above did not finish)" >&2
fi
if [ -f .ci/artifacts/inbox.png ]; then
  echo "inbox screenshot: $PWD/.ci/artifacts/inbox.png"
elif [ "$status" -eq 0 ] && [ "$#" -eq 0 ]; then
  echo "browser tests: no screenshot was written to .ci/artifacts/inbox.png" >&2
  exit 1
fi
exit "$status"
