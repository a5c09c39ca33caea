"""report.html in a real browser (headless Chromium): no script or console error, every internal link and
linked figure resolves in the loaded DOM, and the first screen is not blank.

Skipped, with the reason, where no Chromium exists (``.ci/run`` installs Debian's ``chromium``); the test
installs nothing.  Each check has a negative control on a page built to fail it.
"""

from html.parser import HTMLParser

import numpy as np
import pytest
from mixbounds.checks.run._selftest import fake_document

from mixbounds.report import verify as report
from mixbounds.report.browser import find_chromium, load_page, screenshot

pytestmark = pytest.mark.skipif(find_chromium() is None,
                                reason="no Chromium on PATH (Debian: apt-get install chromium; .ci/run installs it)")

#: a first screen of text and tables has a grey-level standard deviation of ~0.2 (on 0..1); a blank page has 0.
#: Anything above this is a page that drew something
MIN_SCREEN_STD = 0.02


class _Dom(HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.ids, self.links, self.srcs = set(), [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and (a.get("href") or "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag in ("img", "a") and (a.get("src") or a.get("href") or "").startswith("plots/"):
            self.srcs.append(a.get("src") or a.get("href"))


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from mixbounds.plots import draw_all

    out = tmp_path_factory.mktemp("browser")
    doc = fake_document()
    man = draw_all(doc, out / "plots", formats=("png",))
    (out / "report.html").write_text(report.render_html(doc, man, base=out))
    return out, load_page(out / "report.html")


def test_report_loads_without_console_or_script_errors(page):
    out, p = page
    assert p.returncode == 0 and "<h1" in p.dom  # the DOM after the load event
    assert p.js_errors == "" and p.console == [], (p.js_errors, p.console)
    assert p.load_ms is not None  # the page's load handler ran (value printed by `mixbounds report` users, not judged)


def test_every_internal_link_and_figure_resolves_in_the_loaded_dom(page):
    out, p = page
    dom = _Dom(p.dom)
    assert len(dom.links) > 50 and not sorted(set(dom.links) - dom.ids)
    assert dom.srcs and all((out / s).is_file() for s in dom.srcs)


def test_first_screen_is_not_blank(page, tmp_path):
    from matplotlib.image import imread

    out, _ = page
    img = imread(screenshot(out / "report.html", tmp_path / "shot.png"))
    assert img.shape[0] > 100 and img.shape[1] > 100
    assert float(np.std(img[..., :3].mean(axis=2))) > MIN_SCREEN_STD


def test_negative_controls_a_broken_page_is_caught(tmp_path):
    from matplotlib.image import imread

    bad = tmp_path / "bad.html"
    bad.write_text(f"<!DOCTYPE html><html><head><script>{report.ERROR_HOOK}</script></head><body>"
                   '<a href="#nowhere">x</a><img src="plots/missing.png">'
                   "<script>console.log('noise'); undefinedFunction();</script></body></html>")
    p = load_page(bad)
    assert "undefinedFunction" in p.js_errors and any("noise" in c for c in p.console)
    dom = _Dom(p.dom)
    assert set(dom.links) - dom.ids == {"nowhere"} and not (tmp_path / dom.srcs[0]).is_file()
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body style='background:#fff'></body></html>")
    img = imread(screenshot(blank, tmp_path / "blank.png"))
    assert float(np.std(img[..., :3].mean(axis=2))) <= MIN_SCREEN_STD
