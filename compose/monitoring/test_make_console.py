#!/usr/bin/env python3
"""Tests of make-console.py: python3 -m unittest discover -s compose/monitoring (compose/smoke-test.sh runs them)."""

import copy
import importlib.util
import json
import pathlib
import re
import unittest

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("make_console", HERE / "make-console.py")
make_console = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_console)

DASHBOARD = json.loads((HERE / "securepush-dashboard.json").read_text(encoding="utf-8"))


def panel(title, expr, legend="", y=1000, unit="short"):
    return {
        "type": "timeseries",
        "title": title,
        "gridPos": {"h": 8, "w": 12, "x": 0, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}},
        "targets": [{"refId": "A", "expr": expr, "legendFormat": legend}],
    }


def template_actions(page):
    """Every {{ … }} action of the page, as Prometheus's template engine will see them."""
    return re.findall(r"\{\{.*?\}\}", page, re.S)


class MakeConsoleTests(unittest.TestCase):
    def test_the_committed_page_is_generated_from_the_committed_dashboard(self):
        committed = (HERE / "consoles" / "securepush.html").read_text(encoding="utf-8")
        self.assertEqual(committed, make_console.render(DASHBOARD), "run python3 compose/monitoring/make-console.py")

    def test_every_query_of_every_panel_becomes_a_graph_with_the_same_promql(self):
        page = make_console.render(DASHBOARD)
        graphs = page.count("new PromConsole.Graph(")
        self.assertEqual(graphs, sum(1 for p in DASHBOARD["panels"] if p.get("targets")))
        for target in (t for p in DASHBOARD["panels"] for t in p.get("targets", [])):
            expr = target["expr"].replace("$__rate_interval", "1m").replace("$app", ".*")
            self.assertIn(make_console.js_string(expr), page)

    def test_a_panel_appended_to_the_dashboard_appears_on_the_page(self):
        dashboard = copy.deepcopy(DASHBOARD)
        dashboard["panels"].append(
            panel("Database pool", "sum by (service) (securepush_database_connections_in_use)", "{{service}} in use"))
        page = make_console.render(dashboard)
        self.assertIn("<h3>Database pool</h3>", page)
        self.assertIn(make_console.js_string("sum by (service) (securepush_database_connections_in_use)"), page)
        self.assertEqual(page.count("new PromConsole.Graph("), make_console.render(DASHBOARD).count("new PromConsole.Graph(") + 1)

    def test_panels_follow_the_dashboard_layout_and_rows_become_headings(self):
        dashboard = {"panels": [
            panel("second", "vector(2)", y=8),
            {"type": "row", "title": "Section", "gridPos": {"x": 0, "y": 4}, "collapsed": True,
             "panels": [panel("inside the row", "vector(3)", y=5)]},
            panel("first", "vector(1)", y=0),
        ]}
        page = make_console.render(dashboard)
        order = [page.index(marker) for marker in ("<h3>first</h3>", "<h2>Section</h2>", "<h3>inside the row</h3>",
                                                    "<h3>second</h3>")]
        self.assertEqual(order, sorted(order))

    def test_text_from_the_dashboard_never_becomes_a_template_action(self):
        sneaky = '{{ template "securepush_tail" . }}</script><script>alert(1)</script>'
        dashboard = {"title": sneaky, "description": sneaky,
                     "panels": [panel(sneaky, 'sum(x{a="}}"})', legend=sneaky + " {{a}}")]}
        page = make_console.render(dashboard)
        actions = template_actions(page)
        self.assertEqual(actions, template_actions(make_console.render({"panels": [panel("t", "sum(x)")]})))
        self.assertNotIn("<script>alert(1)", page)

    def test_a_legend_keeps_the_text_after_its_last_label(self):
        function = make_console.legend_function("oldest {{platform}} (s)")
        self.assertEqual(function, 'function (m) { return "oldest " + (m["platform"] || \'\') + " (s)"; }')

    def test_grafana_interval_variables_are_filled_and_others_refused(self):
        self.assertEqual(make_console.promql("rate(x[$__rate_interval])", "p"), "rate(x[1m])")
        self.assertEqual(make_console.promql('label_replace(x, "a", "$1", "b", "(.*)")', "p"),
                         'label_replace(x, "a", "$1", "b", "(.*)")')
        # The app selector shows every app on the page.
        self.assertEqual(make_console.promql('x{app=~"$app"}', "p"), 'x{app=~".*"}')
        with self.assertRaisesRegex(make_console.DashboardError, r"\$instance"):
            make_console.render({"panels": [panel("p", 'up{instance="$instance"}')]})

    def test_the_table_shows_deliveries_queue_errors_and_streams(self):
        ids = [row_id for row_id, _ in make_console.summary_queries()]
        for row in ("deliveries-total", "deliveries-by-status", "queue-depth", "queue-oldest", "rpc-error-ratio",
                    "streams-open"):
            self.assertIn(row, ids)
            self.assertIn(f'data-securepush-row="{row}"', make_console.render(DASHBOARD))


if __name__ == "__main__":
    unittest.main()
