"""Open ``report.html`` in headless Chromium: the DOM after load, console messages, script errors, a screenshot.

Used by the browser test (``tests/test_report_browser.py``) and by ``mixbounds report --screenshot``.
Nothing is installed here: :func:`find_chromium` returns ``None`` when no browser exists and the
callers say so.  Each run gets its own temporary profile directory, so concurrent runs do not
share a profile lock.

What a page load reports (:class:`PageLoad`): the serialized DOM (``--dump-dom``, after the load
event), the console lines Chromium logs to stderr (``--enable-logging=stderr``: every
``console.*`` call and every uncaught exception appears as ``INFO:CONSOLE``), the errors recorded by
the report's own error hook (``<html data-js-errors>``) and the page's load time measured by the
page (``<html data-load-ms>``, ``performance.now()`` at the load event).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: names of the Chromium binary, in the order they are tried
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
#: seconds a headless load may take before it counts as hung (a cold start on a loaded 2-core machine takes ~5 s)
TIMEOUT = 120
#: first-screen size of the screenshots (CSS pixels)
WINDOW = (1280, 900)
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
          "--no-default-browser-check", "--disable-extensions", "--mute-audio")
_CONSOLE = re.compile(r":INFO:CONSOLE[^\]]*\]\s*(.*)$")


def find_chromium() -> str | None:
    """Path of a Chromium-type browser on ``PATH``, or ``None``."""
    for name in BROWSERS:
        p = shutil.which(name)
        if p:
            return p
    return None


@dataclass(frozen=True)
class PageLoad:
    dom: str
    console: list
    js_errors: str
    load_ms: float | None
    returncode: int


def _run(browser: str, args: list[str]) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="mixbounds-chromium-") as prof:
        cmd = [browser, *_FLAGS, f"--user-data-dir={prof}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def load_page(html_path, browser: str | None = None) -> PageLoad:
    """Load ``html_path`` from the file system (``file://``, no server) and report what happened."""
    browser = browser or find_chromium()
    if browser is None:
        raise FileNotFoundError("no Chromium browser on PATH (tried " + ", ".join(BROWSERS) + ")")
    url = Path(html_path).resolve().as_uri()
    p = _run(browser, ["--enable-logging=stderr", "--v=0", f"--window-size={WINDOW[0]},{WINDOW[1]}", "--dump-dom", url])
    console = [m.group(1) for line in p.stderr.splitlines() if (m := _CONSOLE.search(line))]
    err = re.search(r'<html[^>]*\bdata-js-errors="([^"]*)"', p.stdout)
    ms = re.search(r'<html[^>]*\bdata-load-ms="([0-9.]+)"', p.stdout)
    return PageLoad(p.stdout, console, err.group(1) if err else "", float(ms.group(1)) if ms else None, p.returncode)


def screenshot(html_path, png_path, browser: str | None = None, size: tuple = WINDOW) -> Path:
    """The first screen of ``html_path`` (``size`` CSS pixels) as a PNG at ``png_path``."""
    browser = browser or find_chromium()
    if browser is None:
        raise FileNotFoundError("no Chromium browser on PATH (tried " + ", ".join(BROWSERS) + ")")
    png_path = Path(png_path).resolve()
    png_path.parent.mkdir(parents=True, exist_ok=True)
    url = Path(html_path).resolve().as_uri()
    p = _run(browser, [f"--window-size={size[0]},{size[1]}", f"--screenshot={png_path}", url])
    if p.returncode != 0 or not png_path.is_file():
        tail = (p.stderr.strip().splitlines() or [""])[-1]
        raise RuntimeError(f"{browser} could not take the screenshot (exit {p.returncode}): {tail}")
    return png_path
