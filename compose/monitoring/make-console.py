#!/usr/bin/env python3
"""Generate consoles/securepush.html, a Prometheus console page, from securepush-dashboard.json.

The Grafana dashboard is the one definition of SecurePush's panels: this script turns each of its panels (in the
dashboard's layout order, whatever panels it has) into a prom_console.js graph with the same PromQL, and puts a table
of current numbers (SUMMARY below) at the top. Prometheus serves the page itself at /consoles/securepush.html when
started with --web.console.templates=consoles --web.console.libraries=console_libraries (the monitoring profile does).

Usage:
  python3 compose/monitoring/make-console.py            # rewrite consoles/securepush.html
  python3 compose/monitoring/make-console.py --check    # exit 1 when the committed page is not up to date
"""

import argparse
import html
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
DASHBOARD = HERE / "securepush-dashboard.json"
CONSOLE = HERE / "consoles" / "securepush.html"

# Grafana's interval variables, as a console page (which has no data source to ask) spells them. Prometheus scrapes
# every 5 s, so 1m holds at least four samples, which is what Grafana's $__rate_interval guarantees.
RATE_INTERVAL = "1m"
GRAFANA_VARIABLES = {
    "$__rate_interval": RATE_INTERVAL,
    "${__rate_interval}": RATE_INTERVAL,
    "$__interval": RATE_INTERVAL,
    "${__interval}": RATE_INTERVAL,
    # The dashboard's app selector: the page shows every app.
    "$app": ".*",
    "${app}": ".*",
}
# Any other $name or ${name} is a dashboard variable this page cannot fill ($1 in label_replace is not one).
UNKNOWN_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?")

# Grafana unit -> (prom_console.js number formatter, unit suffix on the y axis).
UNITS = {
    "ops": ("humanizeNoSmallPrefix", "/s"),
    "reqps": ("humanizeNoSmallPrefix", "/s"),
    "s": ("humanizeNoSmallPrefix", " s"),
    "bytes": ("humanize1024", "B"),
    "percentunit": ("humanizeNoSmallPrefix", ""),
    "short": ("humanizeNoSmallPrefix", ""),
    "none": ("humanizeNoSmallPrefix", ""),
}
DEFAULT_UNIT = ("humanizeNoSmallPrefix", "")

# The table of current numbers at the top: (id, label, PromQL, value template from securepush.lib). A row whose
# label is None is a group: one row per series of the expression, labelled by the series' `by` label.
SUMMARY = [
    ("targets-up", "services scraped (up)", 'sum(up{job="securepush"})', "securepush_count"),
    ("deliveries-total", "deliveries since start", "sum(securepush_deliveries_total)", "securepush_count"),
    ("deliveries-by-status", None, "sum by (status) (securepush_deliveries_total)", "securepush_count"),
    ("deliveries-5m", "deliveries in the last 5 min", "sum(increase(securepush_deliveries_total[5m]))", "securepush_count"),
    ("queue-depth", "deliveries queued", "sum(securepush_delivery_queue_depth)", "securepush_count"),
    ("queue-oldest", "oldest queued delivery", "max(securepush_delivery_queue_oldest_age_seconds)", "securepush_duration"),
    (
        "rpc-error-ratio",
        "RPC errors (share of requests, 5 min)",
        'sum(rate(securepush_rpc_requests_total{code!="ok"}[5m])) / sum(rate(securepush_rpc_requests_total[5m]))',
        "securepush_percentage",
    ),
    ("rpc-errors", "RPC errors per second (5 min)", 'sum(rate(securepush_rpc_requests_total{code!="ok"}[5m]))', "securepush_number"),
    ("streams-open", "open event streams", "sum(securepush_direct_streams_open)", "securepush_count"),
]
SUMMARY_GROUP_LABEL = {"deliveries-by-status": ("status", "deliveries ")}


class DashboardError(Exception):
    """The dashboard JSON has something this page cannot show faithfully."""


def promql(expr, where):
    """The expression with Grafana's interval variables filled in; refuses variables it cannot fill."""
    for variable, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(variable, value)
    unknown = UNKNOWN_VARIABLE.search(expr)
    if unknown:
        raise DashboardError(f"{where}: dashboard variable {unknown.group(0)} has no value on a console page")
    return expr


def panels(dashboard):
    """Every panel with queries, rows included (and panels collapsed inside rows), in the dashboard's layout order."""
    flat = []
    for index, panel in enumerate(dashboard.get("panels", [])):
        flat.append((index, panel))
        for inner, child in enumerate(panel.get("panels", [])):
            flat.append((index + (inner + 1) / 1000, child))

    def position(item):
        index, panel = item
        grid = panel.get("gridPos", {})
        return (grid.get("y", 0), grid.get("x", 0), index)

    return [panel for _, panel in sorted(flat, key=position)]


def queries(dashboard):
    """(panel title, legend, PromQL) for every query of every panel, as the console page runs them."""
    result = []
    for panel in panels(dashboard):
        title = panel.get("title", "")
        for target in panel.get("targets", []):
            if target.get("hide") or not target.get("expr"):
                continue
            where = f"panel '{title}' query {target.get('refId', '?')}"
            result.append((title, target.get("legendFormat", ""), promql(target["expr"], where)))
    return result


def summary_queries():
    """(row id, PromQL) of the summary table."""
    return [(row_id, expr) for row_id, _, expr, _ in SUMMARY]


def js_string(text):
    """A JavaScript string literal that neither the console template language ({{ }}) nor HTML (</script>) reads."""
    literal = json.dumps(text, ensure_ascii=True)
    return literal.replace("{", "\\u007b").replace("}", "\\u007d").replace("<", "\\u003c").replace(">", "\\u003e")


def text(value):
    """HTML text that the console template language leaves alone."""
    return html.escape(value).replace("{", "&#123;").replace("}", "&#125;")


def template_string(value):
    """A Go template string literal."""
    return json.dumps(value, ensure_ascii=True)


def legend_function(legend):
    """A JavaScript function naming a series from Grafana's legendFormat ("{{platform}} {{status}}")."""
    if not legend:
        return "null"
    parts = []
    for index, piece in enumerate(re.split(r"\{\{\s*(\w+)\s*\}\}", legend)):
        if index % 2:
            parts.append(f"(m[{js_string(piece)}] || '')")
        elif piece:
            parts.append(js_string(piece))
    return "function (m) { return " + (" + ".join(parts) or "''") + "; }"


def graph(panel, number):
    """One panel as a heading, its description and a PromConsole.Graph."""
    title = panel.get("title", "")
    targets = [t for t in panel.get("targets", []) if t.get("expr") and not t.get("hide")]
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short")
    formatter, suffix = UNITS.get(unit, DEFAULT_UNIT)
    where = lambda t: f"panel '{title}' query {t.get('refId', '?')}"
    exprs = ", ".join(js_string(promql(t["expr"], where(t))) for t in targets)
    names = ", ".join(legend_function(t.get("legendFormat", "")) for t in targets)
    node = f"securepush-panel-{number}"
    lines = [f'<div class="securepush-panel" id="{node}-panel">', f"<h3>{text(title)}</h3>"]
    if panel.get("description"):
        lines.append(f"<p>{text(panel['description'])}</p>")
    lines += [
        f'<div id="{node}"></div>',
        "<script>",
        "new PromConsole.Graph({",
        f'  node: document.querySelector("#{node}"),',
        f"  expr: [{exprs}],",
        f"  name: [{names}],",
        f"  yAxisFormatter: PromConsole.NumberFormatter.{formatter},",
        f"  yHoverFormatter: PromConsole.NumberFormatter.{formatter},",
        f"  yUnits: {js_string(suffix)},",
        "});",
        "</script>",
        "</div>",
    ]
    return lines


def summary_rows():
    """The table of current numbers, evaluated by Prometheus each time the page loads."""
    lines = ['<table class="table table-bordered table-sm securepush-summary" id="securepush-summary">']
    for row_id, label, expr, render in SUMMARY:
        if label is None:
            by, prefix = SUMMARY_GROUP_LABEL[row_id]
            lines += [
                f"{{{{ range query {template_string(expr)} | sortByLabel {template_string(by)} }}}}",
                f'<tr data-securepush-row="{row_id}"><td>{text(prefix)}{{{{ .Labels.{by} }}}}</td>'
                f'<td data-securepush-value="{row_id}">{{{{ template "{render}" .Value }}}}</td></tr>',
                f'{{{{ else }}}}<tr data-securepush-row="{row_id}"><td>{text(prefix)}by {by}</td><td>-</td></tr>{{{{ end }}}}',
            ]
        else:
            lines.append(
                f'<tr data-securepush-row="{row_id}"><td>{text(label)}</td>'
                f'<td data-securepush-value="{row_id}">'
                f'{{{{ template "securepush_value" (args {template_string(expr)} {template_string(render)}) }}}}</td></tr>'
            )
    lines.append("</table>")
    return lines


def render(dashboard):
    """The whole console page."""
    lines = [
        "{{/* GENERATED by compose/monitoring/make-console.py from securepush-dashboard.json: do not edit. Change the",
        "dashboard (or the generator) and run `python3 compose/monitoring/make-console.py`. */}}",
        '{{ template "securepush_head" . }}',
        f"<h1>{text(dashboard.get('title', 'SecurePush'))}</h1>",
    ]
    if dashboard.get("description"):
        lines.append(f"<p>{text(dashboard['description'])}</p>")
    lines += ["<h2>Now</h2>"] + summary_rows()
    lines += ["<h2>Over time</h2>", '{{ template "securepush_timecontrol" . }}']
    number = 0
    for panel in panels(dashboard):
        if panel.get("type") == "row":
            lines.append(f"<h2>{text(panel.get('title', ''))}</h2>")
            continue
        if not panel.get("targets"):
            continue
        number += 1
        lines += graph(panel, number)
    lines.append('{{ template "securepush_tail" . }}')
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed page is not up to date")
    arguments = parser.parse_args()
    try:
        page = render(json.loads(DASHBOARD.read_text(encoding="utf-8")))
    except DashboardError as error:
        print(f"make-console: {error}", file=sys.stderr)
        return 1
    if arguments.check:
        current = CONSOLE.read_text(encoding="utf-8") if CONSOLE.exists() else ""
        if current != page:
            print(
                f"make-console: {CONSOLE.relative_to(HERE.parent.parent)} is not up to date with "
                "securepush-dashboard.json; run python3 compose/monitoring/make-console.py",
                file=sys.stderr,
            )
            return 1
        print("make-console: consoles/securepush.html is up to date")
        return 0
    CONSOLE.write_text(page, encoding="utf-8")
    print(f"make-console: wrote {CONSOLE.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
