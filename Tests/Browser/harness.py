"""What the browser tests and the click-latency runner share: a flowd and a flowd-web in a
temporary directory, headless Chromium driven by Selenium, waits on DOM conditions, and
`flowctl tree --json` (docs/web.md)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, ".build-python", "site"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

from flowd_process import FlowdProcess  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402,F401
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402,F401
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402,F401
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT = 15  # seconds any DOM condition may take; a failure names the condition


class Stack:
    """flowd (the demo launcher unless `app` says another, every kind hosted by browser tabs) and
    flowd-web on a random port."""

    def __init__(self, bin_dir, web_arguments=(), flowd_arguments=(), app="launcher"):
        self.bin = bin_dir
        self.dir = tempfile.mkdtemp(prefix="fwb.", dir="/tmp")  # short: socket paths stay under 107 bytes
        self.flowd = FlowdProcess(os.path.join(bin_dir, "flowd"), ["--app", app, *flowd_arguments], self.dir,
                                  log_path=os.path.join(self.dir, "flowd.log"), environment={"FLOWD_PYTHON_SCREENS": "0"})
        self.socket = self.flowd.socket_path
        self.web_log = os.path.join(self.dir, "web.log")
        self.web = subprocess.Popen(
            [os.path.join(bin_dir, "flowd-web"), "--socket", self.socket, "--port", "0", *web_arguments],
            stdin=subprocess.DEVNULL, stdout=open(self.web_log, "w"), stderr=subprocess.STDOUT)
        self._wait_for(lambda: "inspector" in self.web_output(), "flowd-web to print its URLs", self.web)
        self.url = re.search(r"screens\s+(\S+)", self.web_output()).group(1)
        self.inspector_url = re.search(r"inspector\s+(\S+)", self.web_output()).group(1)
        self.token = self.url.split("token=")[1]
        self.base = self.url.split("/?")[0]
        self.port = int(self.base.rsplit(":", 1)[1])

    def web_output(self):
        with open(self.web_log) as f:
            return f.read()

    def _wait_for(self, condition, what, process):
        deadline = time.monotonic() + 30
        while not condition():
            if process.poll() is not None:
                raise RuntimeError(f"exited ({process.returncode}) before {what}; logs in {self.dir}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}; logs in {self.dir}")
            time.sleep(0.05)

    def tree(self):
        """`flowctl tree --json` of the daemon."""
        out = subprocess.run([os.path.join(self.bin, "flowctl"), "tree", "--json", "--socket", self.socket],
                             check=True, capture_output=True, text=True, timeout=20).stdout
        return json.loads(out)

    def flowctl(self, *arguments):
        """flowctl's stdout for `arguments`, on this daemon (fails the test on a non-zero exit)."""
        return subprocess.run([os.path.join(self.bin, "flowctl"), *arguments, "--socket", self.socket],
                              check=True, capture_output=True, text=True, timeout=20).stdout

    def stats(self):
        """`flowctl stats --json` of the daemon (proto3 JSON: counters that are 0 are left out)."""
        return json.loads(self.flowctl("stats", "--json"))

    def alive(self):
        return self.flowd.poll() is None and self.web.poll() is None

    def stop(self, keep_logs=False):
        if self.web.poll() is None:
            self.web.terminate()
            try:
                self.web.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.web.kill()
        self.flowd.terminate()
        self.flowd.close()
        if not keep_logs:
            shutil.rmtree(self.dir, ignore_errors=True)


def chrome(arguments=()):
    """Headless Chromium from Debian, through Debian's chromedriver (no driver download)."""
    options = webdriver.ChromeOptions()
    for argument in arguments:
        options.add_argument(argument)
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860",
                     "--disable-gpu", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    # The console, to find what the pages' Content-Security-Policy blocked (browser_tests.csp_violations).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def wait(driver, condition, what):
    """Waits for a DOM condition; the failure names it. The inspector redraws its pictures on every
    event, so an element found a moment ago may be gone: the condition is then tried again."""
    return WebDriverWait(driver, WAIT, poll_frequency=0.02, ignored_exceptions=(StaleElementReferenceException,)) \
        .until(lambda d: condition(d), message=f"waiting for {what}")


def stage(driver):
    return driver.find_element(By.ID, "stage")


def on_screen(driver, kind, title=None):
    """Waits until the tab draws a screen of `kind` (with `title`); returns the stage."""
    def check(d):
        element = stage(d)
        if element.get_attribute("data-kind") != kind:
            return False
        if title and d.find_element(By.CSS_SELECTOR, "#stage h1").text != title:
            return False
        return element
    return wait(driver, check, f"a {kind} screen" + (f' "{title}"' if title else ""))


def settled(driver):
    """Waits until no transition runs (a click during a slide may land on the moving element's parent)."""
    wait(driver, lambda d: d.execute_script("return document.getAnimations().length === 0"), "the animations to end")


def tap(driver, selector, index=0):
    """Clicks the `index`th element matching `selector` once the page is still."""
    settled(driver)
    driver.find_elements(By.CSS_SELECTOR, selector)[index].click()


def press(driver, label):
    """Clicks the visible screen's button labelled `label`."""
    settled(driver)
    for button in driver.find_elements(By.CSS_SELECTOR, "#stage button.action"):
        if button.text == label:
            button.click()
            return
    labels = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#stage button.action")]
    raise AssertionError(f'no button "{label}" on the screen; it has {labels}')


def nav_nodes(tree):
    """Every node of the navigation tree, depth first."""
    found = []

    def visit(node):
        found.append(node)
        for child in node.get("children", []):
            visit(child)
        if "presented" in node:
            visit(node["presented"])
    if "window" in tree:
        visit(tree["window"])
    for other in tree.get("otherWindows", []):
        visit(other["window"])
    return found


def screens(tree):
    """The tree's screens: id -> ScreenInfo (ids as numbers)."""
    return {int(n["id"]): n["screen"] for n in nav_nodes(tree) if n.get("kind") == "NODE_KIND_SCREEN"}


def visible_screen(tree):
    for screen_id, info in screens(tree).items():
        if info.get("visible"):
            return screen_id, info
    return None, None
