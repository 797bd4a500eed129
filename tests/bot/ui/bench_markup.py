"""What the chat bubble does with hostile abstract text, in Chromium: our escaper against nh3 and markdown-it-py.

Not a test (pytest does not collect it): a benchmark that prints measured numbers, for the
docstring of bot/render/markdown.py. The real app (bot.ui.build) is served on loopback over a
stub core whose answer to each question is one payload, as a language model quoting an abstract
would write it; each escaper in turn stands in for `inert`. Per escaper: requests the page made
to the payloads' host, links whose text hides their target, HTML elements rendered from the
payload, and payloads shown exactly as written. tests/bot/ui/test_browser_markup.py runs the
same pages for `inert` alone and asserts.
Run: PYTHONPATH=. .venv/bin/python tests/bot/ui/bench_markup.py
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

from bot.render.markdown import inert
from bot.types import Answer, Citation, Paper, Source
from bot.ui import views

Escaper = Callable[[str], str]
HOST = "127.0.0.1:9"  # nothing listens on port 9: a request to it shows in the page's log, then fails
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# name -> (payload, what the reader should see when it differs from the payload: in the answer, in the label)
PAYLOADS: dict[str, tuple[str, str | None] | tuple[str, str | None, str]] = {
    "image": (f"See ![pixel](http://{HOST}/img.png) here.", None),
    "link": (f"Read [the paper](http://{HOST}/link) now.", None),
    "html-img": (f"An <img src=http://{HOST}/tag.png> tag.", None),
    "html-b": ("Some <b>bold</b> and <script>alert(1)</script> text.", None),
    "iframe": (f"<iframe src=http://{HOST}/frame></iframe> framed", None),
    "svg": (f"<svg><image href=http://{HOST}/svg.png /></svg> svg", None),
    "style": (f"<style>p{{background:url(http://{HOST}/css.png)}}</style> css", None),
    "autolink": (f"Visit <http://{HOST}/auto> now.", None),
    "bare-url": (f"Code at http://{HOST}/bare and www.example.org.", None),
    "ref-link": (f"Cites [1] and [click][r].\n\n[r]: http://{HOST}/ref\n[1]: http://{HOST}/one", None),
    "ref-image": (f"A ![pic][p] here.\n\n[p]: http://{HOST}/refimg.png", None),
    "quoted-def": (
        f"See [2] now.\n\n> [2]: http://{HOST}/quoted",
        f"See [2] now. [2]: http://{HOST}/quoted",  # a quote block, as its '>' asks
        f"See [2] now. > [2]: http://{HOST}/quoted",  # on one line, the '>' is text
    ),
    "cite-hijack": (f"GRPO helps [1].\n[1]: http://{HOST}/hijack", None),
    "escaped-bang": (f"Tricky !\\[x](http://{HOST}/e1.png) and \\![y](http://{HOST}/e2.png).", None),
    "backslash-link": (f"Hidden [click\\](http://{HOST}/bs) and [more\\]: x.", None),
    "backslash-image": (f"Hidden ![pic\\](http://{HOST}/bs.png) here.", None),
    "github": ("Code is at [GitHub](https://github.com/x/y) and in the appendix.", None),
    "code": ("Inline `a<b>c` and `![i](u)` code.", None),
    "entities": ("Math: a &lt; b &amp; c > d, x_1 * y_2 * z, 5 < 6.", "Math: a < b & c > d, x_1 * y_2 * z, 5 < 6."),
    "latex-alone": ("A rate of O(1/ε^2) with \\alpha = 0.5 and 5% noise_level.", None),
    "plain": ("GRPO improves reasoning [1]. Safe RL constrains every state [2].", None),
}

# Per bubble: fetching elements, links (text, href), other HTML elements, the text shown.
_INSPECT = """(el) => ({
  fetching: el.querySelectorAll('img, image, iframe, video, audio, source, object, embed, link').length,
  links: [...el.querySelectorAll('a[href]')].map(a => [a.innerText, a.href]),
  tags: el.querySelectorAll('b, em, script, style, svg, iframe').length
    + Math.max(0, el.querySelectorAll('strong').length - 1),  // one is ours: the reference's label
  text: el.innerText,
})"""


@dataclass(frozen=True)
class Seen:
    """What one payload's bubble did in the browser."""

    fetching: int
    hidden_links: list[str]  # hrefs whose link text does not show their host
    tags: int
    as_written: bool

    @property
    def safe(self) -> bool:
        return not (self.fetching or self.hidden_links or self.tags)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answer_stream(question: str, **options: Any) -> Iterator[str | Answer]:
    """The stub core: a language model that quotes the payload named by the question, citing a
    paper whose label is the payload too (the bubble's reference line shows it inline, in bold)."""
    text = PAYLOADS[question.strip()][0]
    label = " ".join(text.split())
    paper = Paper("p0123456789ab", text, text, label, "h", (Source("hostile.jsonl", line=1),))
    yield text
    yield Answer(question, text, False, (Citation(1, paper),), ())


@contextmanager
def served(escaper: Escaper) -> Iterator[str]:
    """The real app over the stub core on a free loopback port, with `escaper` in place of `inert`."""
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    from bot.ui.build import build

    def unused(*args: Any) -> Any:
        raise AssertionError("the markup pages only ask")

    library = views.Library(unused, unused, lambda: [], unused, unused, unused, unused)
    with mock.patch("bot.ui.chat.inert", escaper), mock.patch("bot.render.html.inert", escaper):
        demo = build(lambda q, **o: _answer_stream(q).__next__(), None, lambda: 1, library, ask_stream=_answer_stream)
        port = _free_port()
        demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        try:
            yield f"http://127.0.0.1:{port}/"
        finally:
            demo.close()


def _shown(text: str) -> str:
    return " ".join(text.split())


def visit(url: str, names: list[str]) -> tuple[dict[str, Seen], list[str]]:
    """Ask each payload's name in Chromium; what each bubble did, and every request to HOST."""
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    seen: dict[str, Seen] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(60_000)
            page.on("request", lambda r: requests.append(r.url) if HOST in r.url else None)
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_function("() => { const t = document.querySelector('textarea'); return t && !t.disabled; }")
            box = page.locator("textarea").first
            for n, name in enumerate(names, start=1):
                box.fill(name)
                box.press("Enter")
                bubbles = page.locator("[data-testid='bot']")
                page.wait_for_function(
                    "(n) => document.querySelectorAll(\"[data-testid='bot']\").length >= n", arg=n, timeout=60_000
                )
                page.wait_for_function("() => !document.querySelector('textarea').disabled")
                page.wait_for_timeout(300)  # let the markdown renderer settle
                found = bubbles.nth(n - 1).evaluate(_INSPECT)
                payload, expected, *in_label = PAYLOADS[name]
                hidden = [href for text, href in found["links"] if _host(href) not in text]
                body = _shown(expected or payload)
                label = _shown(in_label[0]) if in_label else body
                written = _shown(found["text"]) == f"{body} [1] {label}"
                seen[name] = Seen(found["fetching"], hidden, found["tags"], written)
            page.wait_for_timeout(1000)  # a late image load still counts
        finally:
            browser.close()
    return seen, requests


def _host(href: str) -> str:
    return href.split("//", 1)[-1].split("/", 1)[0]


def escapers() -> dict[str, Escaper]:
    """inert, the escaper it replaced, and the library candidates that are installed."""
    out: dict[str, Escaper] = {"inert": inert, "inert before": _inert_before}
    try:
        import nh3

        out["nh3.clean(tags=set())"] = lambda t: nh3.clean(t, tags=set())
        out["nh3.clean_text"] = nh3.clean_text
    except ImportError:
        print("nh3 is not installed: skipped", file=sys.stderr)
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).disable(["image", "link", "autolink"])
    out["markdown-it-py, html off"] = parser.render
    return out


def _inert_before(markdown: str) -> str:
    """The escaper before bot.render.markdown (e2d55cc), for the record."""
    return markdown.replace("<", "&lt;").replace("![", "!\\[").replace("](", "\\](")


def main() -> None:
    names = list(PAYLOADS)
    print(f"{'escaper':26} fetches  hidden links  HTML rendered  as written   (of {len(names)} payloads)")
    for label, escaper in escapers().items():
        with served(escaper) as url:
            seen, requests = visit(url, names)
        fetched = sorted({r.rsplit("/", 1)[-1] for r in requests})
        hidden = [n for n, s in seen.items() if s.hidden_links]
        tags = [n for n, s in seen.items() if s.tags]
        written = sum(s.as_written for s in seen.values())
        print(f"{label:26} {len(fetched):7}  {len(hidden):12}  {len(tags):13}  {written:10}")
        for what, names_of in (("fetched", fetched), ("hidden links", hidden), ("HTML", tags)):
            if names_of:
                print(f"    {what}: {', '.join(names_of)}")
        print(f"    not as written: {', '.join(n for n, s in seen.items() if not s.as_written)}")


if __name__ == "__main__":
    main()
