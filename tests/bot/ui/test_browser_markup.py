"""Hostile abstract text in the real chat bubble, in Chromium: nothing fetched, no HTML, no link that hides its target.

The app is built by bot.ui.build over a stub core whose answer quotes one payload per question
(as a language model quoting an abstract would) and cites a paper labelled with it, so both the
answer and the reference line go through `inert` and Gradio's client-side markdown renderer.
The payloads and the page driver are tests/bot/ui/bench_markup.py's, which also measures the
library escapers this one was compared with. Needs /usr/bin/chromium, like test_browser.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

# Markdown's own backslash escapes and code spans: the reader sees `!\[x]` as `![x]` and a code span
# shows `&lt;` for `<`. Both are safe; everything else reads exactly as written.
NOT_VERBATIM = {"escaped-bang", "code"}


def test_hostile_markup_in_answers_and_labels_stays_text() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("Playwright for Python is not installed")
    if not Path("/usr/bin/chromium").exists():
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            pytest.fail("Debian chromium is not installed at /usr/bin/chromium; .ci/setup --test installs it")
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium")
    import bench_markup as bench

    with bench.served(bench.inert) as url:
        seen, requests = bench.visit(url, list(bench.PAYLOADS))
    assert requests == []  # the browser fetched nothing from the payloads' host
    assert set(seen) == set(bench.PAYLOADS)
    unsafe = {name: s for name, s in seen.items() if not s.safe}
    assert unsafe == {}
    assert {name for name, s in seen.items() if not s.as_written} == NOT_VERBATIM
