"""Shared fixtures: a real whatweeat process and a headless Chromium at phone size."""
import atexit
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from smtp_sink import SMTPSink  # noqa: E402

ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"
ROOT = pathlib.Path(os.environ.get("WHATWEEAT_ROOT", pathlib.Path(__file__).parents[2]))
BINARY = os.environ.get("WHATWEEAT_BIN", str(ROOT / ".build" / "debug" / "whatweeat"))

# Every server of the run sends its mail here (reset links and codes are read from mail) and logs
# at debug; what each wrote is gathered in AUDIT_LOG, which the end of the run searches for what no
# log may hold (`pytest_sessionfinish`, issue 58).
MAIL_SINK = SMTPSink()
AUDIT_LOG = tempfile.NamedTemporaryFile(prefix="whatweeat-e2e-audit-", suffix=".log", delete=False).name
atexit.register(lambda: os.path.exists(AUDIT_LOG) and os.remove(AUDIT_LOG))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_template = None


def seeded_template():
    """A data directory migrated and seeded once per run, which every server starts from a copy
    of: a fresh one spends about 3 s migrating and loading the catalogs, a copy starts in 0.35 s
    (the seeders run again and find nothing to do). The environment the tests set (log level,
    Leaflet, push services, app keys) changes nothing that is seeded."""
    global _template
    if _template is None:
        directory = tempfile.mkdtemp(prefix="whatweeat-e2e-template-")
        seeding = Server(data_dir=directory)
        seeding.start()
        seeding.stop()
        seeding.log.close()
        seeding.keep_for_audit()
        os.remove(os.path.join(directory, "server.log"))
        atexit.register(shutil.rmtree, directory, True)
        _template = directory
    return _template


class Server:
    """One whatweeat process on a copy of the seeded data (`seeded_template`); `restart()` stops it
    gracefully and starts it on the same data."""

    def __init__(self, data_dir=None, **environment):
        self.environment = environment
        if data_dir is None:
            data_dir = tempfile.mkdtemp(prefix="whatweeat-e2e-")
            shutil.copytree(seeded_template(), data_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.lock"))
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log = open(os.path.join(self.data_dir, "server.log"), "ab")

    def start(self):
        env = dict(os.environ, DATA_DIR=self.data_dir, PORT=str(self.port), BCRYPT_COST="4", SMTP_URL=MAIL_SINK.url)
        env.update(self.environment)
        # Debug for every server, whatever the test asked: the whole run's log is audited.
        env["LOG_LEVEL"] = "debug"
        env.pop("DATABASE_URL", None)
        self.process = subprocess.Popen([BINARY], cwd=ROOT, env=env, stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not become healthy")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self):
        self.stop()
        self.start()

    def log_text(self):
        """What the server has written to its log so far."""
        self.log.flush()
        with open(os.path.join(self.data_dir, "server.log"), "rb") as log:
            return log.read().decode("utf-8", "replace")

    def keep_for_audit(self):
        with open(os.path.join(self.data_dir, "server.log"), "rb") as log, open(AUDIT_LOG, "ab") as audit:
            shutil.copyfileobj(log, audit)

    def cleanup(self):
        # A server that ended on its own (a crash) leaves its log in artifacts/ and on the output,
        # where the failing test's report can be read beside it.
        died = self.process is not None and self.process.poll() is not None
        self.stop()
        self.log.close()
        self.keep_for_audit()
        if died:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            kept = ARTIFACTS / f"server-died-{self.port}.log"
            shutil.copy(os.path.join(self.data_dir, "server.log"), kept)
            print(f"\nthe server exited by itself ({self.process.returncode}); its log: {kept}")
            with open(kept, "rb") as log:
                print(log.read().decode("utf-8", "replace")[-6000:])
        shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture
def server():
    instance = Server()
    instance.start()
    yield instance
    instance.cleanup()


@pytest.fixture
def server_without_leaflet():
    """A server that finds no map library: no Debian copy, no CDN (pages fall back to lists)."""
    instance = Server(LEAFLET_DIR="/nonexistent-leaflet", LEAFLET_CDN="off")
    instance.start()
    yield instance
    instance.cleanup()


def make_browser(*extra_arguments):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844",
                     "--hide-scrollbars", "--lang=ko-KR", "--force-device-scale-factor=1", *extra_arguments):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "ko-KR,ko"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    # The window size includes browser chrome; emulate the phone's viewport exactly.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    # Times on pages are Korean time, written by the server and by scripts alike.
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Seoul"})
    driver.implicitly_wait(0)
    return driver


@pytest.fixture
def browser(request):
    driver = make_browser()
    driver.test_name = request.node.name
    yield driver
    driver.quit()


def shot(driver, step):
    """Saves a 390x844 screenshot of the current page as artifacts/<test>/<step>.png."""
    folder = ARTIFACTS / driver.test_name
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / f"{step}.png"))


def wait_for(driver, condition, timeout=10):
    """Waits until `condition(driver)` is truthy. A condition that reads an element while the page
    is being replaced (a navigation, a redirect) meets a stale element, or Chromium's "unhandled
    inspector error" for a document that is going away; both count as "not yet". Any other driver
    error still fails the test at once."""
    def settled(driver):
        try:
            return condition(driver)
        except WebDriverException as error:
            if "unhandled inspector error" in (error.msg or ""):
                return False
            raise
    return WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(settled)


def fill(driver, field_id, text):
    element = driver.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(text)


def no_horizontal_overflow(driver):
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def visible(driver, selector):
    """The element, once it is on the page and shown."""
    return wait_for(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, selector)))


def click(driver, selector):
    """Waits until the element is clickable, scrolls it to the middle (clear of sticky bars) and clicks."""
    element = wait_for(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, selector)))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    return element


def sign_up(driver, server, nickname):
    """A new account through the sign-up page; lands, signed in and welcomed, back on the page the
    browser was on (the home page when it came from elsewhere)."""
    driver.get(server.url + "/signup")
    fill(driver, "email", f"{abs(hash(nickname)) % 10**8}@example.com")
    fill(driver, "nickname", nickname)
    fill(driver, "password", "password1")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    wait_for(driver, EC.url_contains("welcome=1"))


def allow_location(driver, server, lat, lon):
    """The page may ask where the browser is, and it is at (lat, lon)."""
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": lat, "longitude": lon, "accuracy": 10})


# What no log line may hold at any level (issue 58): full e-mail addresses, phone numbers, password
# hashes, signed tokens, and any code or link token the run's servers mailed. The one exception
# is the development server's deliberate line for a phone code (these servers have no SMS sender).
FORBIDDEN = {
    "an e-mail address": re.compile(r"(?<![*A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    "a phone number": re.compile(r"(\+82[ -]?|\b0)1[016789][ -]?\d{3,4}[ -]?\d{4}\b"),
    "a password hash": re.compile(r"\$2[abxy]?\$\d{2}\$"),
    "a signed token": re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ"),
}
DELIBERATE = "one-time code for phone"
# Addresses that are no one's: the sender the servers are given, and the push contact's default.
NOBODYS = ("noreply@whatweeat.test", "operator@whatweeat.invalid")


def audit_findings(text, mailed):
    """(what, line) for each line of `text` holding something no log may hold."""
    secrets = set()
    for body in mailed:
        secrets.update(re.findall(r"token=([A-Za-z0-9_-]{16,})", body))
        secrets.update(re.findall(r"(?<!\d)(\d{6})(?!\d)", body))
    findings = []
    for line in text.splitlines():
        if DELIBERATE in line:
            continue
        for what, pattern in FORBIDDEN.items():
            for match in pattern.finditer(line):
                if match.group(0) not in NOBODYS:
                    findings.append((what, line))
        for secret in secrets:
            if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(secret)}(?![A-Za-z0-9_-])", line):
                findings.append(("a mailed code or link token", line))
    return findings


def pytest_sessionfinish(session, exitstatus):
    if not os.path.exists(AUDIT_LOG):
        return
    with open(AUDIT_LOG, "rb") as log:
        text = log.read().decode("utf-8", "replace")
    mailed = MAIL_SINK.all_texts()
    findings = audit_findings(text, mailed)
    lines = len(text.splitlines())
    print(f"\nlog audit: {lines} lines at debug from every server of the run, {len(mailed)} mails; {len(findings)} findings")
    if findings:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(AUDIT_LOG, ARTIFACTS / "audited-server-logs.log")
        for what, line in findings[:20]:
            print(f"  {what}: {line[:300]}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
