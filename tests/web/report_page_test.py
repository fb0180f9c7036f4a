#!/usr/bin/python3
"""The HTML report opened from disk in headless Chromium: kjudge report makes it from the fixture
run, the page loads with no failed request and no console error, its charts are drawn (each
canvas has painted pixels), model-written HTML in the run stays text, and a screenshot is taken.

    report_page_test.py PATH/TO/kjudge
"""
import base64
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "report")
KJUDGE = None



class ReportPage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kjudge-report-page-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def make(self, args, name):
        out = os.path.join(self.dir, name)
        r = subprocess.run([KJUDGE, "report", *args, "--html", out,
                            "--problems", os.path.join(SOURCE, "examples", "pack"),
                            "--solutions", os.path.join(SOURCE, "examples", "solutions")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def open(self, driver, path):
        driver.get("file://" + path)
        self.assertEqual(driver.execute_script("return document.readyState"), "complete")

    def assert_clean(self, driver):
        self.assertEqual(chromium.failed_requests(driver), [])
        self.assertEqual(chromium.console_errors(driver), [])

    def assert_painted(self, driver, canvases):
        for c in canvases:
            n = chromium.painted_pixels(driver, c)
            self.assertGreater(n, 500, f"canvas {c} is empty ({n} painted pixels)")

    def screenshot(self, driver, name):
        path = os.path.join(self.dir, name)
        # The whole page: CDP's capture beyond the window, so the test sees what a reader does.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": 1280, "height": min(height, 6000), "scale": 1}})
        data = base64.b64decode(shot["data"])
        with open(path, "wb") as f:
            f.write(data)
        self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"), "not a PNG")
        self.assertGreater(len(data), 20000, "a trivial screenshot")
        if os.environ.get("KJUDGE_KEEP_SCREENSHOTS"):
            keep = os.path.join(os.environ["KJUDGE_KEEP_SCREENSHOTS"], name)
            with open(keep, "wb") as f:
                f.write(data)

    def test_run_report(self):
        page = self.make([os.path.join(FIXTURES, "run-a")], "report.html")
        with chromium.browser() as d:
            self.open(d, page)
            self.assertEqual(d.execute_script("return window.kjChartsDrawn"), 3)
            self.assert_painted(d, ["chart-groups", "chart-verdicts", "chart-speedups"])
            # The fixture's detail and log carry HTML that would set this if it ran.
            self.assertIsNone(d.execute_script("return window.kjInjected"))
            self.assertEqual(d.execute_script("return document.querySelectorAll('img').length"), 0)
            # The drill-down opens and holds the prompt and logs as text.
            n = d.execute_script("""
              const p = document.getElementById('p-example/saxpy');
              p.open = true;
              return p.querySelectorAll('details').length;""")
            self.assertGreaterEqual(n, 6)
            text = d.execute_script("return document.getElementById('p-example/saxpy').innerText")
            self.assertIn("<script>window.kjInjected = 1</script>", text)
            self.assert_clean(d)
            self.screenshot(d, "report.png")

    def test_comparison(self):
        page = self.make(["--compare", os.path.join(FIXTURES, "run-a"),
                          os.path.join(FIXTURES, "run-b")], "compare.html")
        with chromium.browser() as d:
            self.open(d, page)
            self.assert_painted(d, ["chart-compare"])
            self.assertIn("p = 0.625", d.find_element("id", "significance").text)
            self.assert_clean(d)
            self.screenshot(d, "compare.png")


if __name__ == "__main__":
    KJUDGE = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
