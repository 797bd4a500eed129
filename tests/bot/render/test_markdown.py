"""Markdown escapers: `escape` for our emphasis, `inert` for abstract text in the chat bubble.

A CommonMark parser (markdown-it-py, HTML on, so it reports what the browser would render) is
the oracle: no image, link or HTML token survives `inert`. The browser itself is checked in
tests/bot/ui/test_browser_markup.py.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from bot.render.markdown import escape, inert

HOSTILE = [
    "See ![pixel](http://h/img.png) here.",
    "Read [the paper](http://h/link) now.",
    "An <img src=http://h/tag.png> tag and <b>bold</b>.",
    "Visit <http://h/auto> now.",
    "Cites [1] and [click][r].\n\n[r]: http://h/ref\n[1]: http://h/one",
    "A ![pic][p] here.\n\n[p]: http://h/p.png",
    "See [2] now.\n\n> [2]: http://h/quoted",
    "- item\n\n  [3]: http://h/listed\n\nCites [3].",
    "Hidden [click\\](http://h/bs) and ![pic\\\\](http://h/bs2.png) and [x\\\\\\]: http://h/odd",
    "Tricky !\\[x](http://h/e1.png) and \\![y](http://h/e2.png).",
    "[[nested]](http://h/n) and [a]\n(http://h/split)",
]


def _tokens(markdown: str) -> list[str]:
    parser = MarkdownIt("commonmark", {"html": True})
    out: list[str] = []
    for token in parser.parse(markdown):
        out.append(token.type)
        out += [child.type for child in token.children or []]
    return out


@pytest.mark.parametrize("text", HOSTILE)
def test_inert_leaves_no_image_link_or_html(text: str) -> None:
    assert {"image", "link_open", "html_inline", "html_block"} & set(_tokens(text))  # the payload is live
    assert {"image", "link_open", "html_inline", "html_block"}.isdisjoint(_tokens(inert(text)))


def test_inert_reads_as_written() -> None:
    text = "Hidden [click\\](http://h/bs) and [r]: x <b> ok."
    shown = MarkdownIt("commonmark").render(inert(text))
    assert shown == "<p>Hidden [click\\](http://h/bs) and [r]: x &lt;b&gt; ok.</p>\n"
    assert inert("GRPO improves reasoning [1]. Safe RL [2].") == "GRPO improves reasoning [1]. Safe RL [2]."
    assert inert("see ![x](http://a/b.png) <b>now</b>") == "see !\\[x\\](http://a/b.png) &lt;b>now&lt;/b>"


def test_escape_makes_every_markdown_special_literal() -> None:
    assert escape("a*b_[c]  <d>\n#e|`f`\\") == "a\\*b\\_\\[c\\] \\<d\\> \\#e\\|\\`f\\`\\\\"
    assert MarkdownIt("commonmark").render(f"*{escape('x_*y*_ [z](u)')}*") == "<p><em>x_*y*_ [z](u)</em></p>\n"
