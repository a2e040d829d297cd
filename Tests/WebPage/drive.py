#!/usr/bin/env python3
"""Drives docsyncd's status page (SPEC §15) in a real browser: headless Chromium through
Debian's chromedriver and selenium, offline (SE_OFFLINE=true: selenium-manager never looks
for or downloads a driver).

    drive.py SIGN_IN_URL SCENARIO[,SCENARIO...] SCREENSHOT_DIR [options]

It opens the one-time sign-in URL that `docs-status web` printed (the daemon sets the
session cookie and sends the browser to /), waits until the page is live (its server-sent
event stream open and the folders drawn), then plays each scenario in turn, in one page:

  held-restore     a card under "Held for you" (--folder, else the first): click its
                   restore button; wait until the card is gone and the notice says done.
  held-confirm     the same with the confirm button (accepting the browser's confirm()).
  conflict-resolve a conflict card (--conflict FOLDER/PATH, else the first): click
                   resolve-KEEP (--keep local|remote|both, default local); wait until the
                   card is gone and the notice says done.
  recover          a Recently Deleted row (--deleted FOLDER/PATH, else the first): click
                   recover; wait until the row is gone and the notice says done.
  pause-resume     the folder's row (--folder, else the first): click pause, wait for the
                   state "paused", click resume, wait for a state other than "paused".
  live             the folder's row, without a click: once the page shows it, the script
                   creates --ready-file (the handshake: the test changes files only then)
                   and waits until the row shows at least --min-items items (and, with
                   --state, that state), with no reload of the page in between.

A screenshot is saved before and after each click (for `live`: before and after the
change) as SCREENSHOT_DIR/SCENARIO-NN-what.png, and one named ...-failed.png when a step
fails. At the end the browser's console must hold no error and no Content-Security-Policy
report, and every request the page made must have gone to its own origin (the performance
log). Every wait has a deadline (--timeout seconds per step). Exit status: 0 when everything
held; 1 with a message saying which step failed; 2 for bad arguments or a browser that
cannot start.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from urllib.parse import urlsplit

os.environ["SE_OFFLINE"] = "true"  # never let selenium-manager reach the network

try:
    from selenium import webdriver
    from selenium.common.exceptions import (NoSuchElementException, StaleElementReferenceException,
                                            TimeoutException, WebDriverException)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:  # pragma: no cover - the Swift test checks this before running us
    print(f"drive.py: selenium is not installed ({error}); run Tests/WebPage/install.sh", file=sys.stderr)
    sys.exit(2)

CHROMIUM = os.environ.get("DOCSYNC_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("DOCSYNC_CHROMEDRIVER", "/usr/bin/chromedriver")
SCENARIOS = ("held-restore", "held-confirm", "conflict-resolve", "recover", "pause-resume", "live")


class StepFailed(Exception):
    pass


def log(message):
    print(f"[drive.py {time.strftime('%H:%M:%S')}] {message}", flush=True)


def css_string(value):
    """`value` as a CSS string literal, for attribute selectors of names with any character."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


class Page:
    def __init__(self, driver, shots, timeout):
        self.driver = driver
        self.shots = shots
        self.timeout = timeout
        self.count = 0
        self.scenario = "page"

    # -- waiting -------------------------------------------------------------------------

    def wait(self, what, condition, timeout=None):
        """Waits until `condition(driver)` is truthy (and returns it), or fails naming `what`
        (a text, or a function giving one, asked when the time is up)."""
        def guarded(driver):
            try:
                return condition(driver)
            except (StaleElementReferenceException, NoSuchElementException):
                return False  # the page redrew it: look again
        try:
            return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.1).until(guarded)
        except TimeoutException:
            if callable(what):
                try:
                    what = what()
                except WebDriverException as error:
                    what = f"(cannot say: {error.msg})"
            raise StepFailed(f"{self.scenario}: timed out after {timeout or self.timeout} s waiting for {what}") from None

    def find(self, selector):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0] if found else None

    def shot(self, what):
        self.count += 1
        path = os.path.join(self.shots, f"{self.scenario}-{self.count:02d}-{what}.png")
        if not self.driver.save_screenshot(path):
            raise StepFailed(f"cannot save the screenshot {path}")
        log(f"screenshot {path}")
        return path

    def notice(self):
        line = self.find("#notice")
        return (line.text, "failed" in (line.get_attribute("class") or "")) if line else ("", False)

    def click(self, selector, what):
        """The screenshot before, then a click on the button `selector` finds. The page redraws
        its lists and rows whenever the daemon's status changes, so a button found a moment
        ago may be gone (a new one in its place): it is found again until the click lands.
        (The screenshot after is the caller's, once the click's effect shows.)"""
        self.shot(f"before-{what}")
        def clicked(driver):
            button = self.find(selector)
            if button is None:
                return False
            if not button.is_enabled():
                raise StepFailed(f"{self.scenario}: the button {selector} is disabled")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            button.click()
            return True
        self.wait(f"the button {selector} to click", clicked)
        log(f"clicked {what}")

    def wait_done(self, label):
        """The page's notice line says `label: done` (the POST was answered 2xx and nothing
        was refused)."""
        def done(_):
            text, failed = self.notice()
            if failed:
                raise StepFailed(f"{self.scenario}: the page says it failed: {text!r}")
            return text.startswith(label) and text.endswith(": done")
        self.wait(lambda: f"the notice '{label}: done' (it says {self.notice()[0]!r})", done)

    # -- the page ------------------------------------------------------------------------

    def open(self, url):
        self.scenario = "open"
        self.driver.get(url)
        origin = urlsplit(url)
        self.wait("the page at / after signing in",
                  lambda d: self.find("#folders") is not None or "sign-in address was used" in self.find("body").text)
        if self.find("#folders") is None:
            raise StepFailed("the daemon refused the sign-in address (spent, expired or not its own): "
                             + self.find("body").text.replace("\n", " "))
        self.wait("the live indicator (the event stream open)",
                  lambda d: "on" in (self.find("#live").get_attribute("class") or "").split())
        self.wait("a folder row (the first status event)", lambda d: self.find("#folders tr[data-folder]") is not None)
        self.wait("the lists drawn (held, conflicts)",
                  lambda d: self.find("#held > *") is not None and self.find("#conflicts > *") is not None)
        log(f"page live at {origin.scheme}://{origin.netloc}/ with folders "
            f"{[row.get_attribute('data-folder') for row in self.driver.find_elements(By.CSS_SELECTOR, '#folders tr[data-folder]')]}")
        # Gone after a reload or a navigation: `live` checks that it is still there.
        self.driver.execute_script("window.__docsyncDriven = 'kept'")

    def row(self, folder):
        return self.find(f"#folders tr[data-folder={css_string(folder)}]" if folder else "#folders tr[data-folder]")

    def row_facts(self, folder):
        row = self.row(folder)
        if row is None:
            return None
        state = row.find_element(By.CSS_SELECTOR, "td.state").text.split("\n")[0].strip()
        items = int(row.find_element(By.CSS_SELECTOR, "td.number").text.strip() or "-1")
        return row.get_attribute("data-folder"), state, items

    def click_card(self, container, attribute, key, action, label_of, also=None):
        """Clicks `button[data-action=action]` in the card `[attribute=key]` (or the first
        card) of `container`, then waits until that card is gone, the notice says done and
        `also(key)` holds (when given); returns the card's key."""
        selector = f"{container} [{attribute}={css_string(key)}]" if key else f"{container} [{attribute}]"
        key = self.wait(f"the card {selector}", lambda d: (card := self.find(selector)) and card.get_attribute(attribute))
        selector = f"{container} [{attribute}={css_string(key)}]"
        self.click(f"{selector} button[data-action={css_string(action)}]", action)
        self.wait(f"the card {selector} to go after {action}", lambda d: self.find(selector) is None)
        self.wait_done(label_of(key))
        if also:
            also(key)
        self.shot(f"after-{action}")
        log(f"{key}: gone after {action}; notice {self.notice()[0]!r}")
        return key

    # -- scenarios -----------------------------------------------------------------------

    def held(self, options, action):
        # The page asks confirm() before confirming: main() answers it yes.
        def released(folder):
            self.wait(lambda: f"{folder}'s row to leave the held states (it shows {self.row_facts(folder)})",
                      lambda d: (f := self.row_facts(folder)) and f[1] not in ("held", "deletions held"))
        self.click_card("#held", "data-held", options.folder, action, lambda key: f"{action} {key}", also=released)

    def conflict_resolve(self, options):
        keep = options.keep
        # The notice names the item's path: "resolve PATH: done"; the card's key is FOLDER/PATH.
        def settled(key):
            folder, path = key.split("/", 1)
            directory, _, name = path.rpartition("/")
            stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
            copies = f"#conflicts [data-conflict^={css_string(folder + '/' + (directory + '/' if directory else '') + stem + ' (conflict ')}]"
            self.wait("the cards of its conflict copies to go", lambda d: self.find(copies) is None)
            # The conflict log's newest line: this resolution, at a time a person can read.
            def logged(_):
                for row in self.driver.find_elements(By.CSS_SELECTOR, "#conflict-log tr"):
                    cells = [cell.text.strip() for cell in row.find_elements(By.TAG_NAME, "td")]
                    if len(cells) >= 4 and cells[1] == folder and cells[2] == path and cells[3] == f"resolved-{keep}":
                        return cells
                return None
            cells = self.wait(f"the conflict log to show {path} resolved-{keep}", logged)
            if not any(ch.isalpha() for ch in cells[0]) and ":" not in cells[0]:
                raise StepFailed(f"{self.scenario}: the conflict log's time is not a date a person reads: {cells[0]!r}")
        self.click_card("#conflicts", "data-conflict", options.conflict, f"resolve-{keep}",
                        lambda key: "resolve " + key.split("/", 1)[1], also=settled)

    def recover(self, options):
        self.click_card("#deleted", "data-deleted", options.deleted, "recover",
                        lambda key: "recover " + key.split("/", 1)[1])

    def pause_resume(self, options):
        folder, state, _ = self.wait("the folder's row", lambda d: self.row_facts(options.folder))
        if state == "paused":
            raise StepFailed(f"{self.scenario}: {folder} is paused already")
        for action, wanted in (("pause", lambda s: s == "paused"), ("resume", lambda s: s != "paused")):
            self.click(f"#folders tr[data-folder={css_string(folder)}] button[data-action={css_string(action)}]", action)
            facts = self.wait(lambda: f"{folder}'s state after {action} (it shows {self.row_facts(folder)})",
                              lambda d: (f := self.row_facts(folder)) and wanted(f[1]) and f)
            self.wait_done(f"{action} {folder}")
            self.shot(f"after-{action}")
            log(f"{folder}: {facts[1]} after {action}")

    def live(self, options):
        if options.min_items is None or not options.ready_file:
            raise StepFailed("live needs --min-items N and --ready-file PATH")
        folder, state, items = self.wait("the folder's row", lambda d: self.row_facts(options.folder))
        log(f"{folder}: {state}, {items} items; waiting for ≥ {options.min_items} items"
            + (f" and {options.state}" if options.state else ""))
        self.shot("before-change")
        seen = [(state, items)]
        with open(options.ready_file, "w") as ready:
            ready.write("ready\n")

        def arrived(_):
            facts = self.row_facts(folder)
            if facts and facts[1:] != seen[-1]:
                seen.append(facts[1:])
            return facts and facts[2] >= options.min_items and (not options.state or facts[1] == options.state)
        self.wait(lambda: f"{folder} to show ≥ {options.min_items} items"
                  + (f" and the state {options.state}" if options.state else "") + f" (it showed {seen})", arrived)
        kept = self.driver.execute_script("return window.__docsyncDriven")
        if kept != "kept":
            raise StepFailed(f"{self.scenario}: the page was reloaded or navigated away ({kept!r})")
        self.shot("after-change")
        log(f"{folder}: seen without a reload: " + " → ".join(f"{s} {n}" for s, n in seen))

    def run(self, scenario, options):
        self.scenario = scenario
        self.count = 0
        log(f"scenario {scenario}")
        if scenario == "held-restore":
            self.held(options, "restore")
        elif scenario == "held-confirm":
            self.held(options, "confirm")
        elif scenario == "conflict-resolve":
            self.conflict_resolve(options)
        elif scenario == "recover":
            self.recover(options)
        elif scenario == "pause-resume":
            self.pause_resume(options)
        elif scenario == "live":
            self.live(options)


def browser_problems(driver, origin):
    """The console's errors and CSP reports, and requests to anywhere but `origin`; and the
    paths of the requests the page made (which the log shows)."""
    problems = []
    paths = []
    for entry in driver.get_log("browser"):
        message = entry.get("message", "")
        if entry.get("level") == "SEVERE" or "Content Security Policy" in message or "Refused to" in message:
            problems.append(f"console {entry.get('level')}: {message}")
    for entry in driver.get_log("performance"):
        try:
            event = json.loads(entry["message"])["message"]
        except (KeyError, ValueError):
            continue
        if event.get("method") != "Network.requestWillBeSent":
            continue
        url = event.get("params", {}).get("request", {}).get("url", "")
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or url.startswith("chrome"):
            continue
        if f"{parts.scheme}://{parts.netloc}" != origin:
            problems.append(f"a request outside the page's origin {origin}: {url}")
        else:
            paths.append(parts.path)
    return problems, paths


def start_browser(user_data):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--user-data-dir={user_data}",
                     "--window-size=1280,1400", "--no-first-run", "--no-default-browser-check",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-extensions", "--disable-features=Translate,OptimizationHints,MediaRouter",
                     "--metrics-recording-only", "--password-store=basic"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_output=os.path.join(user_data, "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(10)
    return driver


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="the sign-in URL `docs-status web` printed")
    parser.add_argument("scenarios", help="one or more of " + ", ".join(SCENARIOS) + ", separated by commas")
    parser.add_argument("screenshots", help="the directory for the screenshots (made when missing)")
    parser.add_argument("--folder", help="the folder's id (held-*, pause-resume, live; default: the first)")
    parser.add_argument("--conflict", help="FOLDER/PATH of the conflict card (default: the first)")
    parser.add_argument("--keep", choices=("local", "remote", "both"), default="local", help="which version resolve keeps")
    parser.add_argument("--deleted", help="FOLDER/PATH of the Recently Deleted row (default: the first)")
    parser.add_argument("--min-items", type=int, help="live: the items the row must come to show")
    parser.add_argument("--state", help="live: the state the row must come to show as well (e.g. idle)")
    parser.add_argument("--ready-file", help="live: created once the page shows the row; the test changes files then")
    parser.add_argument("--timeout", type=float, default=30, help="seconds each step may take (default 30)")
    options = parser.parse_args()
    scenarios = [s for s in options.scenarios.split(",") if s]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if not scenarios or unknown:
        parser.error(f"unknown scenario {unknown}; known: {', '.join(SCENARIOS)}")
    if "live" in scenarios and (options.min_items is None or not options.ready_file):
        parser.error("live needs --min-items N and --ready-file PATH")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            print(f"drive.py: {path} is missing (Debian packages chromium and chromium-driver)", file=sys.stderr)
            return 2
    os.makedirs(options.screenshots, exist_ok=True)
    for scenario in scenarios:
        for name in os.listdir(options.screenshots):
            if name.startswith(scenario + "-") and name.endswith(".png"):
                os.remove(os.path.join(options.screenshots, name))
    parts = urlsplit(options.url)
    origin = f"{parts.scheme}://{parts.netloc}"

    user_data = tempfile.mkdtemp(prefix="docsync-chromium-")
    started = time.monotonic()
    try:
        try:
            driver = start_browser(user_data)
        except WebDriverException as error:
            print(f"drive.py: the browser did not start: {error.msg}", file=sys.stderr)
            driver_log = os.path.join(user_data, "chromedriver.log")
            if os.path.exists(driver_log):
                print(open(driver_log, errors="replace").read()[-3000:], file=sys.stderr)
            return 2
        page = Page(driver, options.screenshots, options.timeout)
        failure = None
        try:
            # A confirm() the page asks (held-confirm) is answered yes.
            page.open(options.url)
            driver.execute_script("window.confirm = () => true")
            for scenario in scenarios:
                page.run(scenario, options)
        except StepFailed as error:
            failure = str(error)
        except WebDriverException as error:
            failure = f"{page.scenario}: the browser failed: {error.msg}"
        if failure:
            try:
                page.shot("failed")
                failure += "\n  notice: " + repr(page.notice()[0])
                failure += "\n  page text:\n    " + driver.find_element(By.TAG_NAME, "body").text.replace("\n", "\n    ")[:4000]
            except WebDriverException:
                pass
        problems, paths = browser_problems(driver, origin)
        driver.quit()
        if not paths:
            problems.append("the performance log shows no request at all: the check of origins saw nothing")
        if failure:
            print(f"drive.py: FAILED: {failure}", file=sys.stderr)
        for problem in problems:
            print(f"drive.py: FAILED: {problem}", file=sys.stderr)
        if failure or problems:
            return 1
        log(f"{len(paths)} requests, all to {origin} ({', '.join(sorted(set(paths)))}); no console error")
        log(f"passed: {', '.join(scenarios)} in {time.monotonic() - started:.1f} s")
        return 0
    finally:
        shutil.rmtree(user_data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
