#!/usr/bin/env python3
"""Check SecurePush's dashboard against a running Prometheus: every query works and the console page renders.

  1. every PromQL expression of securepush-dashboard.json (as the console page runs it) and of the console page's
     table evaluates through /api/v1/query without error (a typo, a bad function or label matcher fails here);
  2. /consoles/securepush.html answers 200 with no template error, holds the table and one graph per panel, and the
     static files it loads (prom_console.js, Rickshaw, D3, jQuery, Bootstrap) are served;
  3. with --min-deliveries N, the table's "deliveries since start" reaches N (polled until --wait seconds pass).

Usage: python3 compose/monitoring/check-dashboard.py http://127.0.0.1:9090 [--min-deliveries 1] [--wait 60]
Exit status 0 when everything holds, 1 otherwise (each problem printed to standard error).
"""

import argparse
import html
import importlib.util
import json
import pathlib
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("make_console", HERE / "make-console.py")
make_console = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_console)

TEMPLATE_ERRORS = ("error executing template", "error parsing template", "template: ", "<no value>")
STATIC_ASSET = re.compile(r'(?:src|href)="([^"]*/classic/static/[^"]+)"')
DELIVERIES_CELL = re.compile(r'data-securepush-value="deliveries-total">(.*?)</td>', re.S)


def get(base, path, timeout=10):
    """(HTTP status, body) of GET base + path; HTTP errors are answers too, not exceptions."""
    try:
        with urllib.request.urlopen(base + path, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def evaluate(base, expr):
    """None when Prometheus evaluates expr, else its error."""
    status, body = get(base, "/api/v1/query?query=" + urllib.parse.quote(expr))
    try:
        answer = json.loads(body)
    except ValueError:
        return f"HTTP {status}, not JSON: {body[:200]!r}"
    if status != 200 or answer.get("status") != "success":
        return f"HTTP {status}: {answer.get('errorType', '?')}: {answer.get('error', body[:200])}"
    return None


def check_queries(base, dashboard):
    """Problems of every dashboard and table query."""
    problems = []
    named = [(f"panel '{title}'", expr) for title, _, expr in make_console.queries(dashboard)]
    named += [(f"table row {row_id}", expr) for row_id, expr in make_console.summary_queries()]
    for name, expr in named:
        error = evaluate(base, expr)
        if error:
            problems.append(f"{name}: {expr}\n    {error}")
    print(f"check-dashboard: {len(named) - len(problems)} of {len(named)} queries evaluate")
    return problems


def check_page(base, page_path, dashboard):
    """(problems, page text) of the console page and the static files it loads."""
    status, page = get(base, page_path)
    if status != 200:
        return [f"{page_path}: HTTP {status}: {page[:300]!r}"], page
    problems = [f"{page_path}: template error text {marker!r}" for marker in TEMPLATE_ERRORS if marker in page]
    if 'id="securepush-summary"' not in page:
        problems.append(f"{page_path}: no table of current numbers (id securepush-summary)")
    expected = sum(1 for panel in make_console.panels(dashboard) if panel.get("type") != "row" and panel.get("targets"))
    graphs = page.count("new PromConsole.Graph(")
    if graphs != expected:
        problems.append(f"{page_path}: {graphs} graphs, the dashboard has {expected} panels (page out of date?)")
    assets = sorted(set(html.unescape(path) for path in STATIC_ASSET.findall(page)))
    if not assets:
        problems.append(f"{page_path}: loads no static files from /classic/static")
    for asset in assets:
        asset_status, body = get(base, asset)
        if asset_status != 200 or not body:
            problems.append(f"{page_path} loads {asset}: HTTP {asset_status}")
    return problems, page


def deliveries_shown(page):
    """The table's "deliveries since start", or None when the page shows no number."""
    cell = DELIVERIES_CELL.search(page)
    if not cell:
        return None
    try:
        return float(re.sub(r"<[^>]*>", "", cell.group(1)).strip())
    except ValueError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prometheus", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    parser.add_argument("--page", default="/consoles/securepush.html", help="the console page's path")
    parser.add_argument("--dashboard", default=str(make_console.DASHBOARD), help="the Grafana dashboard JSON")
    parser.add_argument("--min-deliveries", type=float, default=0, help="the table must show at least this many")
    parser.add_argument("--wait", type=float, default=0, help="seconds to keep polling for --min-deliveries")
    arguments = parser.parse_args()
    base = arguments.prometheus.rstrip("/")
    try:
        dashboard = json.loads(pathlib.Path(arguments.dashboard).read_text(encoding="utf-8"))
        problems = check_queries(base, dashboard)
        deadline = time.monotonic() + arguments.wait
        while True:
            page_problems, page = check_page(base, arguments.page, dashboard)
            shown = deliveries_shown(page) if not page_problems else None
            if page_problems or shown is None or shown >= arguments.min_deliveries or time.monotonic() >= deadline:
                break
            time.sleep(2)
    except make_console.DashboardError as error:  # a query the console page cannot run: the page is wrong too
        print(f"check-dashboard: FAILED {error}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:  # Prometheus not reachable, or the dashboard unreadable
        print(f"check-dashboard: {error}", file=sys.stderr)
        return 1
    problems += page_problems
    if not page_problems:
        if shown is None and arguments.min_deliveries > 0:
            problems.append(f"{arguments.page}: the table shows no number for deliveries since start")
        elif shown is None:
            print(f"check-dashboard: {arguments.page} renders; no deliveries yet")
        elif shown < arguments.min_deliveries:
            problems.append(f"{arguments.page}: the table shows {shown:g} deliveries, expected at least "
                            f"{arguments.min_deliveries:g}")
        else:
            print(f"check-dashboard: {arguments.page} renders; deliveries since start: {shown:g}")
    for problem in problems:
        print(f"check-dashboard: FAILED {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
