#!/usr/bin/env python3
"""Tests of check-dashboard.py against a real Prometheus (Debian's package: `prometheus` on PATH, or the binary named
by SECUREPUSH_TEST_PROMETHEUS, with its web files in /usr/share/prometheus/web) scraping a stand-in exporter on
loopback. Skipped without one. Run: python3 -m unittest discover -s compose/monitoring
"""

import http.server
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
CHECK = HERE / "check-dashboard.py"
PROMETHEUS = os.environ.get("SECUREPUSH_TEST_PROMETHEUS") or shutil.which("prometheus")


class Exporter(http.server.BaseHTTPRequestHandler):
    """GET /metrics: a few SecurePush series; `deliveries` is the counter of sent direct deliveries."""

    deliveries = 5

    def do_GET(self):
        body = (
            "# TYPE securepush_deliveries_total counter\n"
            f'securepush_deliveries_total{{platform="direct",status="sent"}} {Exporter.deliveries}\n'
            'securepush_deliveries_total{platform="direct",status="failed"} 0\n'
            "# TYPE securepush_delivery_queue_depth gauge\n"
            'securepush_delivery_queue_depth{platform="direct"} 2\n'
            "# TYPE securepush_rpc_requests_total counter\n"
            'securepush_rpc_requests_total{service="store",method="store.get",code="ok"} 9\n'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check(*arguments):
    """(exit status, standard output + error) of check-dashboard.py."""
    result = subprocess.run(
        [sys.executable, "-B", str(CHECK), *arguments], capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


@unittest.skipUnless(
    PROMETHEUS and pathlib.Path("/usr/share/prometheus/web/static").is_dir(),
    "needs Debian's prometheus (set SECUREPUSH_TEST_PROMETHEUS)")
class CheckDashboardTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = pathlib.Path(tempfile.mkdtemp(prefix="securepush-console-test."))
        cls.exporter = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Exporter)
        threading.Thread(target=cls.exporter.serve_forever, daemon=True).start()
        cls.log = open(cls.work / "prometheus.log", "w")
        shutil.copytree(HERE / "consoles", cls.work / "consoles")
        shutil.copytree(HERE / "console_libraries", cls.work / "console_libraries")
        (cls.work / "prometheus.yml").write_text(
            "global: { scrape_interval: 1s }\n"
            "scrape_configs:\n"
            "  - job_name: securepush\n"
            f"    static_configs: [{{ targets: ['127.0.0.1:{cls.exporter.server_address[1]}'] }}]\n")
        cls.url = f"http://127.0.0.1:{free_port()}"
        cls.prometheus = subprocess.Popen(
            [PROMETHEUS, f"--config.file={cls.work / 'prometheus.yml'}", f"--storage.tsdb.path={cls.work / 'data'}",
             f"--web.listen-address={cls.url[len('http://'):]}",
             f"--web.console.templates={cls.work / 'consoles'}",
             f"--web.console.libraries={cls.work / 'console_libraries'}"],
            stdout=subprocess.DEVNULL, stderr=cls.log)
        cls.wait_for("sum(securepush_deliveries_total)", Exporter.deliveries)

    @classmethod
    def tearDownClass(cls):
        cls.prometheus.terminate()
        try:
            cls.prometheus.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cls.prometheus.kill()
            cls.prometheus.wait()
        cls.exporter.shutdown()
        cls.exporter.server_close()
        cls.log.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def wait_for(cls, expr, value, seconds=30):
        """Polls until expr evaluates to value; fails the test with what it saw after `seconds`."""
        deadline, seen = time.monotonic() + seconds, None
        while time.monotonic() < deadline:
            try:
                query = urllib.parse.quote(expr)
                with urllib.request.urlopen(f"{cls.url}/api/v1/query?query={query}", timeout=5) as response:
                    result = json.load(response)["data"]["result"]
                seen = result
                if result and float(result[0]["value"][1]) == value:
                    return
            except OSError as error:  # not listening yet
                seen = error
            time.sleep(0.5)
        raise AssertionError(f"{expr} did not reach {value} in {seconds} s; last seen {seen}; "
                             f"Prometheus log: {(cls.work / 'prometheus.log').read_text()[-2000:]}")

    def test_the_page_renders_with_every_query_evaluating_and_shows_the_deliveries(self):
        status, output = check(self.url, "--min-deliveries", "1")
        self.assertEqual(status, 0, output)
        self.assertIn("deliveries since start: 5", output)

    def test_the_table_follows_the_counter(self):
        Exporter.deliveries = 8
        try:
            status, output = check(self.url, "--min-deliveries", "8", "--wait", "30")
            self.assertEqual(status, 0, output)
            self.assertIn("deliveries since start: 8", output)
        finally:
            Exporter.deliveries = 5
            self.wait_for("sum(securepush_deliveries_total)", 5)

    def test_too_few_deliveries_fail(self):
        status, output = check(self.url, "--min-deliveries", "1000")
        self.assertEqual(status, 1, output)
        self.assertIn("the table shows 5 deliveries, expected at least 1000", output)

    def test_a_broken_panel_expression_fails(self):
        dashboard = json.loads((HERE / "securepush-dashboard.json").read_text(encoding="utf-8"))
        dashboard["panels"][0]["targets"][0]["expr"] = "sum by (platform status) (securepush_deliveries_total)"
        broken = self.work / "broken-dashboard.json"
        broken.write_text(json.dumps(dashboard))
        status, output = check(self.url, "--dashboard", str(broken))
        self.assertEqual(status, 1, output)
        self.assertIn(f"panel '{dashboard['panels'][0]['title']}'", output)
        self.assertIn("parse error", output)

    def test_a_template_error_fails(self):
        page = (self.work / "consoles" / "securepush.html").read_text(encoding="utf-8")
        (self.work / "consoles" / "broken.html").write_text(
            page.replace('(args "sum(securepush_deliveries_total)"', '(args "sum(securepush_deliveries_total"', 1))
        status, output = check(self.url, "--page", "/consoles/broken.html")
        self.assertEqual(status, 1, output)
        self.assertIn("error executing template", output)

    def test_a_missing_script_fails(self):
        library = self.work / "console_libraries" / "securepush.lib"
        original = library.read_text(encoding="utf-8")
        library.write_text(original.replace("rickshaw/rickshaw.min.js", "rickshaw/missing.min.js"))
        try:
            status, output = check(self.url)
        finally:
            library.write_text(original)
        self.assertEqual(status, 1, output)
        self.assertIn("/classic/static/rickshaw/missing.min.js: HTTP 404", output)


if __name__ == "__main__":
    unittest.main()
