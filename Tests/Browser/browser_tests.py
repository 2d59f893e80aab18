#!/usr/bin/env python3
"""flowd in a real browser (docs/web.md): headless Chromium walks the demo through flowd-web by
clicking, and each test asserts on the DOM and on `flowctl tree --json`. scripts/test runs it.

    python3 Tests/Browser/browser_tests.py --bin .build/debug [--screenshots docs/web]

Tests run in order on one daemon, as a person would: two browser tabs host the screens (tab B
provides only the student editor's kinds and connects first, so flowd places those there), the
tutorial, the student editor and the tabbed app are walked by clicking, the tab is reloaded
mid-flow, the security checks run, and the inspector drives the daemon."""

import argparse
import base64
import hashlib
import json
import http.server
import os
import re
import shutil
import signal
import ssl
import tempfile
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request

from harness import (ActionChains, By, StaleElementReferenceException, Keys, Stack, WAIT, chrome, nav_nodes, on_screen, press, screens, settled, stage, tap,
                     visible_screen, wait)

EDITOR_KINDS = "student-name,student-age"
# flowd's resume grace in these tests (seconds; 5 by default): a closed tab's screens are held this
# long for it to come back. Long enough for a reload to resume (test_reload_mid_flow), short so the
# tests that wait it out (they poll flowd's resumesExpired) do not wait 5 s each.
RESUME_GRACE = 3


class Context:
    def __init__(self, stack, driver, screenshots):
        self.stack = stack
        self.driver = driver
        self.screenshots = screenshots
        self.tab_a = None
        self.tab_b = None

    def switch(self, handle):
        self.driver.switch_to.window(handle)

    def shot(self, name, height=None):
        """Saves a screenshot for docs/web.md (with --screenshots), the window `height` tall if given."""
        if not self.screenshots:
            return
        os.makedirs(self.screenshots, exist_ok=True)
        size = self.driver.get_window_size()
        if height:
            self.driver.set_window_size(size["width"], height)
        self.driver.save_screenshot(os.path.join(self.screenshots, name))
        if height:
            self.driver.set_window_size(size["width"], size["height"])


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def acked_everything(stack):
    """True once every screen's last command is acknowledged (the browser drew it)."""
    return all(int(s.get("ackedSerial", 0)) == int(s.get("lastSerial", 0)) for s in screens(stack.tree()).values())


def breadcrumb(d, text, what="the breadcrumb"):
    """Waits for the breadcrumb to read `text`: the tab redraws the stage on every message, so one
    read may catch it in the middle of a redraw (a CI run failed that way, then read it right)."""
    wait(d, lambda d: d.find_element(By.ID, "breadcrumb").text == text, f"{what}: {text!r}")


def eventually(condition, what):
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def resumes_expired(stack):
    """How many held hosts flowd gave up on after the resume grace (`flowctl stats`' resumesExpired)."""
    return int(stack.stats().get("resumesExpired", 0))


def flowd_keeps(stack, text):
    """Whether flowd keeps `text` among what hosts saved for screens (SaveState): a recording started
    now carries those records in the state it starts from (docs/flowctl.md, "Recording format"), so
    `flowctl record` is started, stopped once it says it records, and its file searched for `text`."""
    path = os.path.join(stack.dir, "kept.rec")
    if os.path.exists(path):
        os.remove(path)
    record = subprocess.Popen([os.path.join(stack.bin, "flowctl"), "record", path, "--socket", stack.socket],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        while "Ctrl-C to stop" not in said:
            line = record.stderr.readline()
            check(line, f"flowctl record ended without starting: {said}")
            said += line
        record.send_signal(signal.SIGINT)
        record.wait(timeout=20)
    finally:
        if record.poll() is None:
            record.kill()
            record.wait()
        record.stderr.close()
    with open(path, "rb") as f:
        return text.encode() in f.read()


def tab_connections(stack):
    return {int(c["id"]): c for c in stack.tree().get("connections", []) if c.get("name") == "flowd-web tab"}


# MARK: tests

def test_two_tabs_connect(ctx):
    """Tab B (the student editor's kinds only) connects first, then tab A (every kind): the menu goes to A."""
    d = ctx.driver
    d.get(ctx.stack.url + "&kinds=" + EDITOR_KINDS)
    ctx.tab_b = d.current_window_handle
    wait(d, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-connection"), "tab B's connection")
    check("No screen here yet" in stage(d).text, f"tab B should start empty, shows: {stage(d).text!r}")
    d.switch_to.new_window("tab")
    ctx.tab_a = d.current_window_handle
    d.get(ctx.stack.url)
    menu = on_screen(d, "menu", "flowd demos")
    check(menu.get_attribute("data-animation") == "none", "the window root appears without animation (Place.animated is false)")
    check(not d.find_elements(By.ID, "back"), "a window root has no back button")
    eventually(lambda: len(tab_connections(ctx.stack)) == 2, "two flowd-web tab connections in the tree")
    _, info = visible_screen(ctx.stack.tree())
    check(info["kind"] == "menu" and info["hostName"] == "flowd-web tab", f"the menu is hosted by a tab: {info}")
    eventually(lambda: acked_everything(ctx.stack), "the menu's Place acked by the browser")
    ctx.shot("menu.png")


def test_tutorial(ctx):
    """Push, back button, a cancelled and a committed back gesture, and the result on the menu."""
    d = ctx.driver
    press(d, "Onboarding tutorial")
    welcome = on_screen(d, "tutorial", "Welcome")
    check(welcome.get_attribute("data-animation") == "push", "a push is animated")
    breadcrumb(d, "flowd demos › Welcome")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    tap(d, "#back")
    popped = on_screen(d, "tutorial", "Welcome")
    check(popped.get_attribute("data-animation") == "none", "the user's own back is not animated again (Dismiss.animated is false)")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    all_set, _ = visible_screen(ctx.stack.tree())
    # A back gesture abandoned half way changes nothing (begin, then cancel).
    # (Had it popped the screen, the committed gesture below would go back to the menu instead.)
    drag(d, "#stage .navbar", 60, 0)
    check(visible_screen(ctx.stack.tree())[0] == all_set, "a cancelled back gesture leaves the screen in place")
    # One dragged past a third of the width commits.
    drag(d, "#stage .navbar", 300, 0)
    on_screen(d, "tutorial", "Welcome")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    press(d, "Done")
    wait(d, lambda d: stage(d).get_attribute("data-kind") == "menu" and "Tutorial completed" in stage(d).text, "the menu saying Tutorial completed")
    check(stage(d).get_attribute("data-animation") == "pop", "the finished flow's screens are dismissed animated")
    eventually(lambda: acked_everything(ctx.stack), "every command acked")


def drag(driver, selector, dx, dy):
    """Drags the element from its left part by (dx, dy) with pointer events."""
    settled(driver)
    element = driver.find_element(By.CSS_SELECTOR, selector)
    ActionChains(driver).move_to_element_with_offset(element, -element.size["width"] // 2 + 140, 0).click_and_hold() \
        .move_by_offset(dx // 2, dy // 2).move_by_offset(dx - dx // 2, dy - dy // 2).release().perform()


def test_reload_mid_flow(ctx):
    """A reloaded tab is a host that disconnects and resumes: same screens, same ids, a new connection."""
    d = ctx.driver
    press(d, "Onboarding tutorial")
    on_screen(d, "tutorial", "Welcome")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    before = ctx.stack.tree()
    screen_before, info_before = visible_screen(before)
    d.refresh()
    on_screen(d, "tutorial", "All set")
    wait(d, lambda d: "(resumed)" in d.find_element(By.ID, "meta").text, "the page saying it resumed")
    breadcrumb(d, "flowd demos › Welcome › All set", "the stack came back whole")
    after = ctx.stack.tree()
    screen_after, info_after = visible_screen(after)
    check(screen_after == screen_before, f"the same screen id after the reload ({screen_before} → {screen_after})")
    check(info_after["connectionId"] != info_before["connectionId"], "a new connection hosts it")
    check(sorted(screens(after)) == sorted(screens(before)), "the same screens")
    tap(d, "#back")
    on_screen(d, "tutorial", "Welcome")
    press(d, "Skip")
    wait(d, lambda d: "Tutorial skipped" in stage(d).text, "the menu saying Tutorial skipped")


def test_student_editor(ctx):
    """The list in tab A, the editors in tab B (several tabs host one app's screens at once)."""
    d = ctx.driver
    press(d, "Student editor")
    on_screen(d, "students", "Students")
    press(d, "Ann (20)")
    wait(d, lambda d: "covered by a screen another host shows" in stage(d).text, "tab A showing that another tab has the screen")
    ctx.switch(ctx.tab_b)
    on_screen(d, "student-name", "Edit Ann")
    breadcrumb(d, "… › Edit Ann", "the list below it is another tab's")
    press(d, "Edit age")
    on_screen(d, "student-age")
    field = d.find_element(By.ID, "field")
    field.clear()
    field.send_keys("abc" + Keys.ENTER)  # Enter sends the text alone
    wait(d, lambda d: "'abc' is not an age" in stage(d).text, "the age editor refusing abc")
    field = d.find_element(By.ID, "field")
    field.clear()
    field.send_keys("33")
    press(d, "Done")
    wait(d, lambda d: stage(d).get_attribute("data-kind") == "student-name" and "Age: 33" in stage(d).text, "Ann's editor showing Age: 33")
    tree = ctx.stack.tree()
    _, info = visible_screen(tree)
    check(info["kind"] == "student-name", f"flowd shows the name editor: {info}")
    b_connection = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-connection"))
    check(int(info["connectionId"]) == b_connection, "tab B's connection hosts it")
    ctx.shot("student-editor.png")
    press(d, "Back to list")
    wait(d, lambda d: "No screen here yet" in stage(d).text, "tab B empty again")
    ctx.switch(ctx.tab_a)
    on_screen(d, "students", "Students")
    press(d, "Back to menu")
    wait(d, lambda d: "Student editor: Ann 33, Bob 21" in stage(d).text, "the menu with the editor's result")


def test_tabbed_app(ctx):
    """A modal tab bar: presented animated, tabs selected by clicking, a stack in a tab, closed with ×."""
    d = ctx.driver
    press(d, "Contacts and events")
    contacts = on_screen(d, "directory", "Contacts")
    check(contacts.get_attribute("data-animation") == "present", "a modal presentation is animated")
    check(d.find_elements(By.CSS_SELECTOR, "#stage .sheet"), "drawn in a modal sheet")
    tabs = d.find_elements(By.CSS_SELECTOR, "#stage .tabbar .tab")
    check(len(tabs) == 2, f"two tabs, got {len(tabs)}")
    press(d, "Ann")
    on_screen(d, "directory-detail", "Ann")
    check(d.find_element(By.ID, "back"), "a back button inside the tab's stack")
    ctx.shot("tabbed-app.png")
    tap(d, "#stage .tabbar .tab", 1)
    on_screen(d, "directory", "Events")
    bars = [n for n in nav_nodes(ctx.stack.tree()) if n.get("kind") == "NODE_KIND_TAB_BAR"]
    check(len(bars) == 1 and int(bars[0].get("selectedTab", 0)) == 1, f"flowd selected tab 2: {bars}")
    tap(d, "#stage .tabbar .tab", 0)
    on_screen(d, "directory-detail", "Ann")
    tap(d, "#close")
    wait(d, lambda d: "modal closed by the user" in stage(d).text, "the menu saying the modal was closed by the user")
    check(stage(d).get_attribute("data-animation") == "none", "the user's own close is not animated again")
    check(not [n for n in nav_nodes(ctx.stack.tree()) if n.get("kind") == "NODE_KIND_TAB_BAR"], "the tab bar is gone")


def test_profile_and_login(ctx):
    """The rest of the launcher: a form whose text goes before the press that uses it, and the login."""
    d = ctx.driver
    press(d, "Personal profile (dismiss animated)")
    on_screen(d, "profile", "Personal profile")
    field = d.find_element(By.ID, "field")
    field.clear()
    field.send_keys("Grace")
    press(d, "Save")  # sends didEnterText("Grace"), then didPressButton
    on_screen(d, "summary", "Profile of Grace")
    press(d, "Done")
    wait(d, lambda d: "Personal profile: saved Grace (dismiss animated)" in stage(d).text, "the menu with the profile")
    press(d, "Log in")
    on_screen(d, "login")
    press(d, "Log in")
    wait(d, lambda d: "Enter a user name first." in stage(d).text, "the login asking for a name")
    field = d.find_element(By.ID, "field")
    field.send_keys("ann")
    press(d, "Log in")
    on_screen(d, "login-success", "Welcome, ann")
    press(d, "Continue")
    wait(d, lambda d: "Login: logged in as ann" in stage(d).text, "the menu with the login")


def csp_violations(driver):
    """Console messages of what the Content-Security-Policy blocked since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def test_security(ctx):
    """The pages' headers, a wrong token, a foreign Origin, a malformed and an oversized message."""
    stack = ctx.stack
    for path in ["/?token=" + stack.token, "/inspector?token=" + stack.token]:
        with urllib.request.urlopen(stack.base + path, timeout=10) as page:
            policy = page.headers.get("Content-Security-Policy", "")
            nonce = policy.split("script-src 'nonce-")[1].split("'")[0] if "script-src 'nonce-" in policy else ""
            html = page.read().decode()
        check("frame-ancestors 'none'" in policy and "default-src 'none'" in policy, f"{path}: a strict policy: {policy!r}")
        check(nonce and f'<script nonce="{nonce}">' in html and f'<style nonce="{nonce}">' in html, f"{path}: the inline script and style carry the nonce")
        check(page.headers.get("Referrer-Policy") == "no-referrer", f"{path}: no referrer")
        check(page.headers.get("X-Frame-Options") == "DENY" and page.headers.get("X-Content-Type-Options") == "nosniff", f"{path}: framing and sniffing refused")
    # Every page drawn so far ran under that policy with nothing blocked.
    blocked = csp_violations(ctx.driver)
    check(not blocked, f"the Content-Security-Policy blocked: {blocked}")
    # The pages hold no secret: served without the token (a bookmark, a copied address), while their
    # WebSockets need it (below). A request whose Host does not name this server gets nothing.
    for path in ["/", "/inspector", "/#students/Bob/age"]:
        with urllib.request.urlopen(stack.base + path, timeout=10) as page:
            check(page.status == 200 and stack.token not in page.read().decode(), f"{path}: served, without the token in it")
    request = urllib.request.Request(stack.base + "/", headers={"Host": "evil.example:80"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("a page was served to a Host that does not name this server")
    except urllib.error.HTTPError as error:
        check(error.code == 403 and "Host" in error.read().decode(), f"a foreign Host is refused: {error.code}")
    # A refused WebSocket handshake is answered 400 (no upgrade); flowd-web's log says why.
    status = handshake_status(stack, "/ws/screens?token=wrong", None)
    check(status.startswith("HTTP/1.1 400"), f"a WebSocket with a wrong token is refused: {status}")
    wait_log(stack, "wrong token")
    status = handshake_status(stack, "/ws/screens?token=" + stack.token, "http://evil.example")
    check(status.startswith("HTTP/1.1 400"), f"a foreign Origin is refused: {status}")
    wait_log(stack, 'the Origin "http://evil.example" is not this server\'s page')
    check(handshake_status(stack, "/ws/screens?token=" + stack.token, stack.base).startswith("HTTP/1.1 101"), "the page's own Origin is accepted")
    # From a real page of another origin, the browser's WebSocket never opens.
    foreign = ForeignSite(stack.port, stack.token)
    d = ctx.driver
    d.switch_to.new_window("tab")
    d.get(foreign.url)
    result = wait(d, lambda d: d.execute_script("return window.outcome"), "the foreign page's WebSocket outcome")
    check(result == "refused", f"the foreign page's WebSocket must not open: {result}")
    d.close()
    foreign.stop()
    ctx.switch(ctx.tab_b)
    # Tab B sends garbage, tab A an oversized message: each loses its socket with a reason, nothing else does.
    d.execute_script("socket.send('not json')")
    wait(d, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-closed"), "tab B's socket closing")
    closed = d.find_element(By.TAG_NAME, "body").get_attribute("data-closed")
    check(closed.startswith("1007 malformed message"), f"closed with 1007 and the reason: {closed}")
    ctx.switch(ctx.tab_a)
    d.execute_script("socket.send('x'.repeat(100000))")
    wait(d, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-closed"), "tab A's socket closing")
    closed = d.find_element(By.TAG_NAME, "body").get_attribute("data-closed")
    check(closed.startswith("1009 message of 100000 bytes is over the 65536-byte limit"), f"closed with 1009 and the reason: {closed}")
    check(stack.alive(), "flowd and flowd-web still run")
    check(stack.tree()["app"] == "launcher", "flowd still answers")
    # Both pages come back by reloading: the same menu, resumed.
    d.refresh()
    on_screen(d, "menu", "flowd demos")
    ctx.switch(ctx.tab_b)
    d.refresh()
    wait(d, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-connection"), "tab B reconnected")
    ctx.switch(ctx.tab_a)


def wait_log(stack, text):
    eventually(lambda: text in stack.web_output(), f"flowd-web logging {text!r}")


def handshake_status(stack, path, origin):
    """The status line flowd-web answers a raw WebSocket handshake with."""
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               + (f"Origin: {origin}\r\n" if origin else "") + "\r\n")
    with socket.create_connection(("127.0.0.1", stack.port), timeout=10) as connection:
        connection.sendall(request.encode())
        return connection.recv(4096).decode(errors="replace").split("\r\n")[0]


class ForeignSite:
    """Another origin on this machine, whose page tries to open flowd-web's WebSocket with the right token."""

    def __init__(self, port, token):
        page = f"""<script>
          window.outcome = null;
          const s = new WebSocket("ws://127.0.0.1:{port}/ws/screens?token={token}");
          s.onopen = () => {{ window.outcome = "opened"; }};
          s.onclose = () => {{ window.outcome = window.outcome || "refused"; }};
        </script>""".encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def test_inspector(ctx):
    """The pictures follow the daemon live; inject, back, select tab, close, terminate and record act on it."""
    d = ctx.driver
    stack = ctx.stack
    d.switch_to.new_window("tab")
    inspector = d.current_window_handle
    d.get(stack.inspector_url)
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#navigation g.node[data-kind=screen]"), "the navigation picture")
    menu_id, _ = visible_screen(stack.tree())
    d.find_element(By.ID, "record").click()
    wait(d, lambda d: "Stop" in d.find_element(By.ID, "record").text, "the recording to start")
    # Inject "Contacts and events" (button 5) into the menu, as if the tab had sent it.
    click_node(d, "screen", menu_id)
    wait(d, lambda d: d.find_elements(By.ID, "output"), "the inject form")
    offered = [o.text for o in d.find_elements(By.CSS_SELECTOR, "#shape option")]
    check('{"didPressButton":{"index":0}}' in offered, f"the menu's output shapes are offered: {offered}")
    # The menu is no stack's pushed screen and in no modal: neither Back nor Close modal is offered.
    check(not d.find_elements(By.ID, "back") and not d.find_elements(By.ID, "close") and d.find_elements(By.ID, "no-navigation"),
          "the menu offers no Back and no Close modal")
    # The root flow's node names the screen it shows by its id, not as a count.
    root_flow = int(stack.tree()["rootFlow"]["id"])
    wait(d, lambda d: f"shows screen #{menu_id}" in node(d, "flow", root_flow).text, f"the root flow showing screen #{menu_id}")
    # Text that is not JSON is not sent: the page says so and stays connected (the inject below goes through).
    area = d.find_element(By.ID, "output")
    area.clear()
    area.send_keys('{"didPressButton":')
    d.find_element(By.ID, "inject").click()
    wait(d, lambda d: d.find_element(By.ID, "result").text.startswith("not JSON: "), "the page saying the output is not JSON")
    check(visible_screen(stack.tree())[0] == menu_id, "nothing was injected")
    area = d.find_element(By.ID, "output")
    area.clear()
    area.send_keys('{"didPressButton":{"index":5}}')
    d.find_element(By.ID, "inject").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#navigation g.node[data-kind=tabbar]"), "a tab bar in the picture")
    check(visible_screen(stack.tree())[1]["kind"] == "directory", "the injected output opened the tabbed app")
    check(d.find_element(By.ID, "status").text == "live", f"the inspector is still live: {d.find_element(By.ID, 'status').text!r}")
    # Select tab 2 from the inspector.
    bar = int(wait(d, lambda d: node(d, "tabbar").get_attribute("data-id"), "the tab bar's id"))
    click_node(d, "tabbar", bar)
    wait(d, lambda d: d.find_elements(By.ID, "tab-1"), "the tab buttons")
    d.find_element(By.ID, "tab-1").click()
    eventually(lambda: int([n for n in nav_nodes(stack.tree()) if n.get("kind") == "NODE_KIND_TAB_BAR"][0].get("selectedTab", 0)) == 1, "tab 2 selected")
    wait(d, lambda d: "tab 2 of 2" in node(d, "tabbar", bar).text, "the picture showing tab 2")
    # The event list: every kind, then only placements.
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#events li[data-kind=injected]"), "the injection in the event list")
    d.find_element(By.ID, "filter-kinds").send_keys("place")
    wait(d, lambda d: {li.get_attribute("data-kind") for li in d.find_elements(By.CSS_SELECTOR, "#events li")} == {"place"}, "only place events")
    ctx.shot("inspector.png", height=1180)
    d.find_element(By.ID, "filter-kinds").clear()
    # The tab shows what the inspector did.
    ctx.switch(ctx.tab_a)
    on_screen(d, "directory", "Events")
    ctx.switch(inspector)
    # Close the modal from the inspector.
    events_id, _ = visible_screen(stack.tree())
    click_node(d, "screen", events_id)
    wait(d, lambda d: d.find_elements(By.ID, "close"), "the close button")
    tap(d, "#close")
    eventually(lambda: visible_screen(stack.tree())[1]["kind"] == "menu", "the modal closed")
    # Open the tutorial and go back from the inspector.
    press_from_inspector(d, stack, 0)
    eventually(lambda: visible_screen(stack.tree())[1]["kind"] == "tutorial", "the tutorial open")
    press_from_inspector(d, stack, 1)
    eventually(lambda: len(screens(stack.tree())) == 3, "the tutorial's second screen")
    top, _ = visible_screen(stack.tree())
    click_node(d, "screen", top)
    wait(d, lambda d: d.find_elements(By.ID, "back"), "the back button")
    check(not d.find_elements(By.ID, "close"), "a pushed screen in no modal offers no Close modal")
    tap(d, "#back")
    eventually(lambda: len(screens(stack.tree())) == 2, "back from the inspector")
    # Terminate the tutorial's flow.
    flow = [f for f in stack.tree()["rootFlow"].get("children", []) if f["type"] == "OnboardingFlow"]
    check(flow, "the tutorial flow runs")
    click_node(d, "flow", int(flow[0]["id"]))
    d.find_element(By.ID, "terminate").click()
    eventually(lambda: not stack.tree()["rootFlow"].get("children"), "the flow terminated")
    ctx.switch(ctx.tab_a)
    on_screen(d, "menu")
    ctx.switch(inspector)
    # Stop recording and fetch the file.
    d.find_element(By.ID, "record").click()
    link = wait(d, lambda d: d.find_element(By.ID, "download").get_attribute("href") if not d.find_element(By.ID, "download").get_attribute("hidden") else None, "the download link")
    data = urllib.request.urlopen(link, timeout=10).read()
    first = int.from_bytes(data[:4], "little")
    check(len(data) > 100 and 0 < first < len(data), f"a recording of wire frames ({len(data)} bytes)")
    blocked = csp_violations(d)
    check(not blocked, f"the Content-Security-Policy blocked something in the inspector: {blocked}")
    d.close()
    ctx.switch(ctx.tab_a)


def drawn_screens(d):
    """The screen nodes the inspector's navigation picture draws: id -> whether it is drawn visible."""
    return {int(n.get_attribute("data-id")): "visible" in n.get_attribute("class")
            for n in d.find_elements(By.CSS_SELECTOR, "#navigation g.node[data-kind=screen]")}


def moment_screens(moment):
    """`flowctl at N --json`'s screens: id -> visible."""
    return {screen_id: bool(info.get("visible")) for screen_id, info in screens(moment["tree"]).items()}


def test_timeline(ctx):
    """The timeline scrubs back to an earlier moment: the pictures show what `flowctl at N` says, read-only,
    with what its input changed; a range is exported and replays to the same placements; a preview tab
    draws that moment's screen; the live app is untouched, and Live comes back to it."""
    d = ctx.driver
    stack = ctx.stack
    live_before = [line for line in stack.flowctl("tree").splitlines() if not line.startswith("  #") and not line.startswith("    peer ") and "pending" not in line]
    history = json.loads(stack.flowctl("history", "--json"))
    count = int(history["count"])
    check(count > 20, f"the walk so far journaled inputs: {count}")
    d.switch_to.new_window("tab")
    inspector = d.current_window_handle
    d.get(stack.inspector_url)
    wait(d, lambda d: d.find_element(By.ID, "tl-count").text.startswith(f"{count} inputs"), f"the timeline to hold {count} inputs")
    # The moment the menu opened the tabbed app (a modal with a tab bar): a past the tab no longer shows.
    opened = [int(i["index"]) for i in history["inputs"] if i.get("screenKind") == "menu" and i.get("change", {}).get("placed")]
    check(opened, "the history names the menu's presses that placed screens")
    tabbed = [index for index in opened if "NODE_KIND_TAB_BAR" in stack.flowctl("at", str(index), "--json")]
    check(tabbed, f"a press on the menu opened the tabbed app: {opened}")
    target = tabbed[0]
    at = json.loads(stack.flowctl("at", str(target), "--json"))
    d.execute_script("const s = document.getElementById('tl-slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", target)
    wait(d, lambda d: drawn_screens(d) == moment_screens(at), f"the navigation picture of moment {target} as flowctl at {target} says")
    label = d.find_element(By.ID, "tl-label").text
    check(label.startswith(f"moment {target} · ") and history["inputs"][target - 1]["kind"] in label, f"the label names the input: {label!r}")
    check("past" in d.find_element(By.TAG_NAME, "body").get_attribute("class"), "the page says it shows the past")
    change = d.find_element(By.ID, "tl-change").text
    check(change.startswith("changed") , f"what the input changed: {change!r}")
    # A screen of the past: its state, and nothing to drive.
    visible = [screen_id for screen_id, shown in moment_screens(at).items() if shown][-1]
    click_node(d, "screen", visible)
    state = wait(d, lambda d: d.find_element(By.ID, "moment-state").text, "the past screen's state")
    expected = [s for s in at["screens"] if int(s["id"]) == visible][0]
    check(json.loads(state) == json.loads(base64.b64decode(expected["state"]["data"])), f"the state shown is the moment's: {state!r}")
    check(not d.find_elements(By.ID, "inject"), "a past moment offers no action on the live app")
    # Every screen of the moment with its state, in the list under the strip.
    listed = {int(li.get_attribute("data-screen")) for li in d.find_elements(By.CSS_SELECTOR, "#tl-states li")}
    check(listed == set(moment_screens(at)), f"the moment's screens are listed with their states: {listed}")
    ctx.shot("timeline.png", height=1180)
    # One step back with the button: the moment before.
    d.find_element(By.ID, "tl-prev").click()
    before = json.loads(stack.flowctl("at", str(target - 1), "--json"))
    wait(d, lambda d: drawn_screens(d) == moment_screens(before), f"moment {target - 1} after a step back")
    # Export inputs 2..target and replay them.
    for field, value in (("tl-from", 2), ("tl-to", target)):
        box = d.find_element(By.ID, field)
        box.clear()
        box.send_keys(str(value))
    d.find_element(By.ID, "tl-export").click()
    link = wait(d, lambda d: d.find_element(By.ID, "tl-download").get_attribute("href") if not d.find_element(By.ID, "tl-download").get_attribute("hidden") else None, "the export's download link")
    data = urllib.request.urlopen(link, timeout=10).read()
    exported = os.path.join(stack.dir, "range.rec")
    with open(exported, "wb") as f:
        f.write(data)
    replay = subprocess.run([os.path.join(stack.bin, "flowd"), "replay", exported], capture_output=True, text=True, timeout=60)
    check(replay.returncode == 0 and "same placements" in replay.stdout, f"the exported range replays: {replay.stdout} {replay.stderr}")
    # The preview: that moment's visible screen, drawn by the screen page, read-only.
    d.execute_script("const s = document.getElementById('tl-slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", target)
    wait(d, lambda d: drawn_screens(d) == moment_screens(at), f"moment {target} again")
    preview = d.find_element(By.ID, "tl-preview").get_attribute("href")
    d.switch_to.new_window("tab")
    d.get(preview)
    shown = [s for s in at["screens"] if int(s["id"]) == visible][0]
    on_screen(d, shown["kind"])
    check("preview" in d.find_element(By.TAG_NAME, "body").get_attribute("class"), "the preview page is read-only")
    wait(d, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-moment") == str(target), "the preview's moment")
    ctx.shot("preview.png")
    d.close()
    ctx.switch(inspector)
    # Nothing of this touched the live app; Live shows it again.
    live_after = [line for line in stack.flowctl("tree").splitlines() if not line.startswith("  #") and not line.startswith("    peer ") and "pending" not in line]
    check(live_after[1:] == live_before[1:], f"the live tree is as it was:\n{live_after}\n{live_before}")
    check(int(json.loads(stack.flowctl("history", "--json"))["count"]) == count, "no input was journaled by the timeline")
    d.find_element(By.ID, "tl-live").click()
    live_now = {screen_id: bool(info.get("visible")) for screen_id, info in screens(stack.tree()).items()}
    wait(d, lambda d: drawn_screens(d) == live_now, "the live pictures again")
    blocked = csp_violations(d)
    check(not blocked, f"the Content-Security-Policy blocked something in the timeline: {blocked}")
    d.close()
    ctx.switch(ctx.tab_a)


def test_a_closed_tab_leaves_its_place_to_the_next(ctx):
    """The one tab hosting the menu's kinds closes; past the resume grace its screens wait for the next
    host of their kinds, and a tab opened on the same URL is back in the same place: the demo goes on."""
    d = ctx.driver
    ctx.switch(ctx.tab_a)
    press(d, "Onboarding tutorial")
    on_screen(d, "tutorial", "Welcome")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    eventually(lambda: acked_everything(ctx.stack), "every command acked")
    before = ctx.stack.tree()
    top_before, _ = visible_screen(before)
    expired = resumes_expired(ctx.stack)
    closed = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-connection"))
    d.close()
    ctx.switch(ctx.tab_b)
    eventually(lambda: closed not in tab_connections(ctx.stack), "the closed tab's connection gone")
    # Past the resume grace: nobody resumed, flowd let the hold go and the screens wait.
    eventually(lambda: resumes_expired(ctx.stack) == expired + 1, f"flowd to give up on the closed tab after its {RESUME_GRACE} s grace")
    check(int(ctx.stack.stats().get("screensHeld", 0)) == 0, f"no screen held any more: {ctx.stack.stats()}")
    check(ctx.stack.alive(), "flowd and flowd-web still run")
    waiting = ctx.stack.tree()
    check(sorted(screens(waiting)) == sorted(screens(before)), "the same screens, waiting for a host")
    d.switch_to.new_window("tab")
    ctx.tab_a = d.current_window_handle
    d.get(ctx.stack.url)
    on_screen(d, "tutorial", "All set")
    breadcrumb(d, "flowd demos › Welcome › All set", "the whole stack back in the new tab")
    after = ctx.stack.tree()
    check(visible_screen(after)[0] == top_before, "the same screen where the user was")
    tap(d, "#back")
    on_screen(d, "tutorial", "Welcome")
    press(d, "Skip")
    wait(d, lambda d: "Tutorial skipped" in stage(d).text, "the menu saying Tutorial skipped")


def test_the_place_in_the_address_bar(ctx):
    """The address bar shows where the user is, as a link after #, and never the token; a reload
    resumes there; that address opened in a new tab (a bookmark) opens the place through the flows."""
    d = ctx.driver
    stack = ctx.stack
    ctx.switch(ctx.tab_a)
    check("token=" not in d.current_url, f"the token left the address bar: {d.current_url}")
    check(d.execute_script("return localStorage.getItem('flowd-web-token')") == stack.token, "the token is kept in the origin's storage")
    press(d, "Onboarding tutorial")
    on_screen(d, "tutorial", "Welcome")
    wait(d, lambda d: d.current_url.endswith("/#tutorial"), "the address bar at #tutorial")
    press(d, "Next")
    on_screen(d, "tutorial", "All set")
    wait(d, lambda d: d.current_url.endswith("/#tutorial/done"), "the address bar at #tutorial/done")
    check(stack.tree().get("place") == "tutorial/done", "flowd says the same place")
    d.refresh()
    on_screen(d, "tutorial", "All set")
    check(d.current_url.endswith("/#tutorial/done") and "token=" not in d.current_url, f"a reload keeps the place: {d.current_url}")
    # Another place's address, opened as a bookmark in a new tab: the place opens through the flows.
    d.switch_to.new_window("tab")
    bookmark = d.current_window_handle
    d.get(stack.base + "/#students/Bob/age")
    # Any site may link here: the page offers the place and opens it only when asked.
    offer = wait(d, lambda d: d.find_element(By.ID, "open-place"), "the offer to open the place")
    check("students/Bob/age" in d.find_element(By.ID, "notice").text, "the offer names the place")
    check(stack.tree().get("place") == "tutorial/done", "nothing opened before the person asked")
    offer.click()
    eventually(lambda: stack.tree().get("place") == "students/Bob/age", "flowd at students/Bob/age")
    _, info = visible_screen(stack.tree())
    check(info["kind"] == "student-age", f"the age editor is visible: {info}")
    check("token=" not in d.current_url, f"no token in the new tab's address: {d.current_url}")
    d.close()
    ctx.switch(ctx.tab_b)
    on_screen(d, "student-age")
    wait(d, lambda d: d.current_url.endswith("#students/Bob/age"), "tab B, which shows it, says where it is")
    tap(d, "#back")
    on_screen(d, "student-name", "Edit Bob")
    wait(d, lambda d: d.current_url.endswith("#students/Bob"), "back: the address follows")
    _ = bookmark


def test_a_draft_outlives_its_tab(ctx):
    """What is typed and not sent is saved with flowd as the screen's draft (SaveState): the tab that
    shows Bob's editor closes mid-word, and the tab that gets the screen after the resume grace shows
    the same half-typed name (docs/web.md, docs/protocol.md §19)."""
    d = ctx.driver
    ctx.switch(ctx.tab_b)
    on_screen(d, "student-name", "Edit Bob")
    field = d.find_element(By.ID, "field")
    field.send_keys(Keys.END + "by")  # "Bobby", not sent: no Enter, no button
    check(field.get_attribute("value") == "Bobby", "typed into the field")
    # The draft reaches flowd (one message per keystroke) before the tab closes.
    eventually(lambda: flowd_keeps(ctx.stack, "Bobby"), "flowd keeping the draft 'Bobby'")
    check("Edit Bob" in stage(d).text, "nothing was sent: the flow still says Edit Bob")
    expired = resumes_expired(ctx.stack)
    closed = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-connection"))
    d.close()
    ctx.switch(ctx.tab_a)
    eventually(lambda: closed not in tab_connections(ctx.stack), "the closed tab's connection gone")
    # Past the resume grace: the screen goes to the next host of its kind, tab A.
    eventually(lambda: resumes_expired(ctx.stack) == expired + 1, f"flowd to give up on the closed tab after its {RESUME_GRACE} s grace")
    on_screen(d, "student-name", "Edit Bob")
    field = d.find_element(By.ID, "field")
    check(field.get_attribute("value") == "Bobby", f"the draft came back: {field.get_attribute('value')!r}")
    field.send_keys(Keys.ENTER)  # now sent: the flow renames Bob
    wait(d, lambda d: "Edit Bobby" in stage(d).text, "the flow took the name")
    d.switch_to.new_window("tab")
    ctx.tab_b = d.current_window_handle
    d.get(ctx.stack.url)
    ctx.switch(ctx.tab_a)


def node(driver, kind, node_id=None):
    selector = f"#{'flows' if kind == 'flow' else 'navigation'} g.node[data-kind={kind}]" + (f"[data-id='{node_id}']" if node_id is not None else "")
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def click_node(driver, kind, node_id):
    """Clicks a node of a picture; the pictures are redrawn on every event, so a click may need a second try."""
    def attempt(d):
        try:
            found = node(d, kind, node_id)
            if found is None:
                return False
            found.click()
            return True
        except StaleElementReferenceException:
            return False
    wait(driver, attempt, f"clicking {kind} {node_id} in the picture")


def press_from_inspector(d, stack, index):
    visible, _ = visible_screen(stack.tree())
    click_node(d, "screen", visible)
    area = wait(d, lambda d: d.find_element(By.ID, "output"), "the inject form")
    area.clear()
    area.send_keys('{"didPressButton":{"index":%d}}' % index)
    d.find_element(By.ID, "inject").click()
    wait(d, lambda d: "inject: " in d.find_element(By.ID, "result").text, "the inject result")
    d.execute_script("document.getElementById('result').textContent = ''")


def test_inspector_over_tls(bin_dir):
    """Off loopback flowd-web refuses plain HTTP with advice; with a self-signed certificate it serves the
    inspector over HTTPS and WSS, which Chromium (trusting that one key) draws and drives."""
    refused = subprocess.run([os.path.join(bin_dir, "flowd-web"), "--host", "0.0.0.0", "--port", "0"],
                             capture_output=True, text=True, timeout=20)
    check(refused.returncode == 64, f"--host 0.0.0.0 without TLS exits 64: {refused.returncode}")
    for advice in ("is reachable from other machines", "give --tls-cert and --tls-key", "or --insecure"):
        check(advice in refused.stderr, f"the refusal says {advice!r}: {refused.stderr}")
    folder = tempfile.mkdtemp(prefix="fwt.", dir="/tmp")
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
                   check=True, capture_output=True, timeout=60)
    # Chromium trusts this one key (its SPKI hash), not every certificate.
    public = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public, check=True, capture_output=True).stdout
    spki = base64.b64encode(hashlib.sha256(der).digest()).decode()
    stack = Stack(bin_dir, web_arguments=["--host", "0.0.0.0", "--tls-cert", cert, "--tls-key", key])
    driver = chrome([f"--ignore-certificate-errors-spki-list={spki}"])
    try:
        check(stack.inspector_url.startswith("https://"), f"the URLs are https: {stack.inspector_url}")
        url = re.sub(r"^https://[^/]+", f"https://127.0.0.1:{stack.port}", stack.inspector_url)
        # Plain HTTP on the same port is not served.
        try:
            urllib.request.urlopen(url.replace("https://", "http://"), timeout=5)
            raise AssertionError("plain HTTP was answered on the TLS port")
        except AssertionError:
            raise
        except Exception:
            pass
        # Over a certificate Python checks against the one made here, the page lets its script talk to wss://.
        context = ssl.create_default_context(cafile=cert)
        with urllib.request.urlopen(url, timeout=10, context=context) as response:
            policy = response.headers.get("Content-Security-Policy", "")
            check(f"wss://127.0.0.1:{stack.port}" in policy and "ws://" not in policy, f"the CSP names wss: {policy}")
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#navigation g.node[data-kind=screen]"), "the navigation picture over wss")
        wait(driver, lambda d: d.find_element(By.ID, "status").text == "live", "the inspector live")
        check(driver.execute_script("return location.protocol") == "https:", "the page is https")
        # Drive the app from the inspector: the menu's first button opens the tutorial.
        menu_id, _ = visible_screen(stack.tree())
        click_node(driver, "screen", menu_id)
        area = wait(driver, lambda d: d.find_element(By.ID, "output"), "the inject form")
        area.clear()
        area.send_keys('{"didPressButton":{"index":0}}')
        driver.find_element(By.ID, "inject").click()
        eventually(lambda: visible_screen(stack.tree())[1]["kind"] == "tutorial", "the tutorial opened over wss")
        blocked = csp_violations(driver)
        check(not blocked, f"the Content-Security-Policy blocked something over TLS: {blocked}")
    finally:
        driver.quit()
        stack.stop()
        shutil.rmtree(folder, ignore_errors=True)


def card_text(d):
    """The drawn card's title and body."""
    return d.find_element(By.CSS_SELECTOR, "#stage .card").text


def test_the_till_in_two_tabs(bin_dir, screenshots):
    """The till (flowd --app till) in two tabs, one per window: the cashier's tab hosts the screens and
    shows the main window, the customer's (`/?display=customer`, opened from the cashier's list of
    windows) shows the customer's window and is the display `customer` for flowd. Items scanned in the
    cashier's tab show in the customer's with their total; Pay tapped there reaches the cashier's flow,
    and the customer's tab goes idle. The inspector draws both windows, live and at a moment of the
    history. A reload of the cashier's tab takes the window away from the customer's tab and brings it
    back; closing the window from the customer's tab leaves it saying so."""
    stack = Stack(bin_dir, flowd_arguments=["--resume-grace", str(RESUME_GRACE)], app="till")
    d = chrome()
    ctx = Context(stack, d, screenshots)
    try:
        d.get(stack.url)
        cashier = d.current_window_handle
        on_screen(d, "till", "Till")
        check(d.find_element(By.TAG_NAME, "body").get_attribute("data-display") == "main", "the cashier's tab shows the main window")
        # The customer's window is listed, with a link to its tab.
        item = wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#windows li[data-display=customer]"), "the customer's window in the list")[0]
        wait(d, lambda d: "On the display customer: Welcome" in d.find_element(By.CSS_SELECTOR, "#windows li[data-display=customer]").text,
             "the list naming its screen")
        item.find_element(By.TAG_NAME, "a").click()
        wait(d, lambda d: len(d.window_handles) == 2, "the customer's tab to open")
        customer = [h for h in d.window_handles if h != cashier][0]
        ctx.switch(customer)
        check("display=customer" in d.current_url, f"the customer's tab is bound to its display: {d.current_url}")
        on_screen(d, "customer", "Welcome")
        check(d.find_element(By.TAG_NAME, "body").get_attribute("data-display") == "customer", "the customer's tab shows its display")
        check(not d.find_elements(By.CSS_SELECTOR, "#windows li"), "the customer's tab lists no other window")
        # The tab is the display `customer` for flowd (and the cashier's is `main`).
        eventually(lambda: sorted(x["id"] for x in stack.tree().get("displays", {}).get("displays", [])) == ["customer", "main"],
                   "flowd to know the displays main and customer")

        # Scan two items in the cashier's tab: the customer's tab shows the basket and its total.
        ctx.switch(cashier)
        press(d, "Scan apple")
        wait(d, lambda d: "Scanned apple." in card_text(d), "the till's note")
        press(d, "Scan bread")
        wait(d, lambda d: "Scanned bread." in card_text(d), "the till's note")
        ctx.switch(customer)
        wait(d, lambda d: card_text(d).startswith("Your basket") and "Apple 1.00" in card_text(d) and "Total 3.50" in card_text(d),
             "the customer's tab to show the basket and its total")
        # Take the payment: the customer's tab shows the Pay prompt over the basket.
        ctx.switch(cashier)
        press(d, "Take payment")
        wait(d, lambda d: "Waiting for the customer to pay 3.50." in card_text(d), "the till waiting for the customer")
        d.execute_script("window.scrollTo(0, 0)")
        ctx.shot("till-cashier.png", height=1000)
        ctx.switch(customer)
        on_screen(d, "customer-pay", "Pay 3.50")
        check(d.find_elements(By.CSS_SELECTOR, "#stage .sheet"), "the prompt is presented as a sheet")
        settled(d)
        ctx.shot("till-customer.png", height=900)
        # Pay, in the customer's tab: the cashier's flow gets it, the customer's tab goes idle.
        press(d, "Pay")
        on_screen(d, "customer", "Welcome")
        ctx.switch(cashier)
        wait(d, lambda d: "Paid 3.50. Sale 1 done" in card_text(d), "the cashier's flow to have the payment")
        # Every command was acknowledged: the cashier's tab acks the customer's window's too.
        eventually(lambda: acked_everything(stack), "every command acked")

        # The inspector draws both windows, live and at the moment the Pay prompt was up.
        d.switch_to.new_window("tab")
        inspector = d.current_window_handle
        d.get(stack.inspector_url)
        pictures = "#navigation .window-picture[data-display=%s] g.node[data-kind=screen]"
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, pictures % "main") and d.find_elements(By.CSS_SELECTOR, pictures % "customer"),
             "a picture of each window")
        captions = [c.text for c in d.find_elements(By.CSS_SELECTOR, "#navigation .window-caption")]
        check(captions[0] == "the main window" and captions[1].endswith("on the display customer"), f"the windows' captions: {captions}")
        history = json.loads(stack.flowctl("history", "--json"))
        placing = [int(i["index"]) for i in history["inputs"] if i.get("change", {}).get("placed")]
        moment = None
        for index in placing:
            at = json.loads(stack.flowctl("at", str(index), "--json"))
            kinds = [n["screen"]["kind"] for w in at["tree"].get("otherWindows", []) for n in nav_all(w["window"]) if n.get("kind") == "NODE_KIND_SCREEN"]
            if "customer-pay" in kinds:
                moment = index
                break
        check(moment is not None, "a moment of the history with the Pay prompt in the customer's window")
        d.execute_script("const s = document.getElementById('tl-slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", moment)
        wait(d, lambda d: "customer-pay" in " ".join(n.text for n in d.find_elements(By.CSS_SELECTOR, pictures % "customer")),
             f"the customer's window at moment {moment} with the Pay prompt")
        ctx.shot("inspector-windows.png", height=1100)
        d.find_element(By.ID, "tl-live").click()
        wait(d, lambda d: "customer-pay" not in " ".join(n.text for n in d.find_elements(By.CSS_SELECTOR, pictures % "customer")),
             "the live customer's window without the prompt")
        # The preview of that moment draws the main window and lists the customer's; its link previews that display.
        d.get(f"{stack.base}/preview?moment={moment}")
        on_screen(d, "till", "Till")
        wait(d, lambda d: "On the display customer: Pay 3.50" in d.find_element(By.ID, "windows").text, "the preview listing the customer's window")
        href = d.find_element(By.CSS_SELECTOR, "#windows li[data-display=customer] a").get_attribute("href")
        check(href.endswith(f"/preview?moment={moment}&display=customer"), f"the window's link previews the same moment: {href}")
        d.get(href)
        on_screen(d, "customer-pay", "Pay 3.50")
        d.close()

        # A reload of the cashier's tab (the host): the customer's tab loses the window, then has it again.
        ctx.switch(cashier)
        d.refresh()
        on_screen(d, "till", "Till")
        ctx.switch(customer)
        on_screen(d, "customer", "Welcome")
        # Closing the window from the customer's tab (the user's CloseWindow): the tab says so; the
        # cashier's flow hears the customer's display is gone.
        settled(d)
        d.find_element(By.ID, "close-window").click()
        wait(d, lambda d: "No window is open on the display customer" in stage(d).text, "the customer's tab saying its window closed")
        ctx.switch(cashier)
        wait(d, lambda d: "The customer's display is gone" in card_text(d), "the till told the customer's display is gone")
        wait(d, lambda d: not d.find_elements(By.CSS_SELECTOR, "#windows li"), "the cashier's list of windows empty")
        check(stack.alive(), "flowd and flowd-web still run")
    finally:
        d.quit()
        stack.stop()


def nav_all(node):
    """A navigation node and every node under it, modal presentations included."""
    found = [node]
    for child in node.get("children", []):
        found += nav_all(child)
    if "presented" in node:
        found += nav_all(node["presented"])
    return found


TESTS = [test_two_tabs_connect, test_tutorial, test_reload_mid_flow, test_student_editor, test_tabbed_app,
         test_profile_and_login, test_security, test_inspector, test_timeline, test_a_closed_tab_leaves_its_place_to_the_next,
         test_the_place_in_the_address_bar, test_a_draft_outlives_its_tab]


def walk(args, tests):
    """The tests that walk one daemon in order; (passed, failures)."""
    stack = Stack(os.path.abspath(args.bin), flowd_arguments=["--resume-grace", str(RESUME_GRACE)])
    driver = chrome()
    failures = 0
    ctx = Context(stack, driver, args.screenshots)
    try:
        for test in tests:
            begun = time.monotonic()
            try:
                test(ctx)
                print(f"ok   {test.__name__} ({time.monotonic() - begun:.1f} s)", flush=True)
            except Exception:
                failures += 1
                print(f"FAIL {test.__name__}\n{traceback.format_exc()}", flush=True)
                shot = os.path.join(stack.dir, test.__name__ + ".png")
                driver.save_screenshot(shot)
                print(f"     screenshot {shot}; logs in {stack.dir}", flush=True)
                break  # the tests walk one daemon in order: later ones depend on earlier ones
    finally:
        driver.quit()
        stack.stop(keep_logs=failures > 0)
    return (len(tests) - failures if not failures else tests.index(test)), failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the folder with flowd, flowctl and flowd-web")
    parser.add_argument("--screenshots", help="save the demo's and the inspector's screenshots here")
    parser.add_argument("--only", help="run only the tests whose name holds this text (the walk's tests depend on the ones before)")
    args = parser.parse_args()
    tests = [t for t in TESTS if not args.only or args.only in t.__name__]
    started = time.monotonic()
    failures = 0
    passed = 0
    if tests:
        passed, failures = walk(args, tests)
    # Each with its own flowd-web and its own Chromium: TLS on every address; the till's two windows.
    alone = [("test_inspector_over_tls", lambda: test_inspector_over_tls(os.path.abspath(args.bin))),
             ("test_the_till_in_two_tabs", lambda: test_the_till_in_two_tabs(os.path.abspath(args.bin), args.screenshots))]
    alone = [(name, run) for name, run in alone if not args.only or args.only in name]
    for name, run in alone:
        begun = time.monotonic()
        try:
            run()
            print(f"ok   {name} ({time.monotonic() - begun:.1f} s)", flush=True)
            passed += 1
        except Exception:
            failures += 1
            print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)
    print(f"browser tests: {passed} of {len(tests) + len(alone)} passed "
          f"in {time.monotonic() - started:.1f} s", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
