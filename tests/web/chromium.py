"""Headless Chromium for the page tests (Debian's chromium + chromium-driver, via selenium).

browser() starts one; failed_requests() lists what the page could not load (any network failure or
HTTP status >= 400), read from Chromium's performance log, so a test can say "no failed requests".
"""
import contextlib
import json
import os
import shutil
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


@contextlib.contextmanager
def browser(width=1280, height=1000):
    profile = tempfile.mkdtemp(prefix="kjudge-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              f"--window-size={width},{height}", f"--user-data-dir={profile}",
              "--disable-extensions", "--disable-background-networking"):
        opts.add_argument(a)
    if os.geteuid() == 0:  # Chromium refuses to run its own sandbox as root (CI runs as root)
        opts.add_argument("--no-sandbox")
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def failed_requests(driver):
    """The URLs that failed to load since the last call, with why: (url, reason)."""
    urls, failed = {}, []
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        p = m.get("params", {})
        if m["method"] == "Network.requestWillBeSent":
            urls[p["requestId"]] = p["request"]["url"]
        elif m["method"] == "Network.responseReceived" and p["response"]["status"] >= 400:
            failed.append((p["response"]["url"], f"HTTP {p['response']['status']}"))
        elif m["method"] == "Network.loadingFailed" and not p.get("canceled"):
            # Only the page's own requests: Chromium's background ones never got a
            # requestWillBeSent in this log.
            if p["requestId"] in urls:
                failed.append((urls[p["requestId"]], p.get("errorText", "failed")))
    return failed


def console_errors(driver):
    """The page's console messages of level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def painted_pixels(driver, canvas_id):
    """How many of the canvas's pixels are not fully transparent (-1: no such canvas), so a
    test can tell a chart that rendered from an empty one."""
    return driver.execute_script("""
const c = document.getElementById(arguments[0]);
if (!c) return -1;
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let n = 0;
for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
return n;
""", canvas_id)
