"""Text from abstracts made safe inside markdown: `escape` for names set inside our own emphasis,
`inert` for abstract or model text in the chat bubble. It writes no markdown of its own.

Gradio's Chatbot renders a message's markdown in the browser (GitHub-flavoured, HTML passed to
its sanitiser, which keeps `<img>`, `<svg>` and `<b>`). So an abstract quoting
`![x](http://host/pixel.png)` or `<img src=...>` would make the reader's browser fetch it, and
`[text](url)` or a reference definition (`[1]: url`, which turns every citation marker `[1]` into
a link) would hide where a link goes. Both escapers are hand-written: measured in Chromium against
the candidate libraries on 21 hostile payloads, each in an answer and in a cited paper's label
(`PYTHONPATH=. .venv/bin/python tests/bot/ui/bench_markup.py`; the bubble built by bot.ui.build):

    escaper                      fetches  hidden links  HTML rendered  shown as written
    inert (this module)             0          0              0              19
    inert as it was (e2d55cc)       0          4              0              15
    nh3.clean(tags=set())           2          5              0               5
    nh3.clean_text                  1          3              1              12
    markdown-it-py, html off,       4          3              0               0
      images and links disabled (its HTML is parsed as markdown again where a label sits inline)

nh3 is an HTML sanitiser: it drops text (`<b>now</b>` -> `now`) or escapes every space, and
leaves markdown images alone. markdown-it-py is not the browser's markdown parser, so what it
leaves as text the browser still reads as an image. The two payloads not shown verbatim are
markdown's own escapes (`!\\[x]` reads `![x]`) and a code span (it shows `&lt;`). Bare URLs stay:
the chat's GitHub-style autolinking makes them links that show their own target, and nothing
is fetched until clicked.
"""

from __future__ import annotations

import re

# Markdown's specials inside emphasis, names and one-line values.
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
# What opens an image, closes a link's text, or starts a reference definition; with any backslashes
# before it, which are doubled so that none of them can cancel the escape put in front.
_LINK_PART = re.compile(r"(\\*)(!\[|\]\(|\]:)")


def escape(text: str) -> str:
    """Text safe inside markdown emphasis, on one line. Example: escape("a*b_[c]") -> 'a\\*b\\_\\[c\\]'"""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def inert(markdown: str) -> str:
    """Text from abstracts made safe for a markdown bubble: no HTML, no images, no links it hides.

    `<` becomes `&lt;` (no tag, no `<url>` autolink) and the bracket of each `![`, `](` and `]:` is
    escaped (no image, inline link or reference definition); the reader sees the text as written.
    Example: inert("see ![x](http://a/b.png) <b>now</b>") -> 'see !\\[x\\](http://a/b.png) &lt;b>now&lt;/b>'
    """
    return _LINK_PART.sub(_neutral, markdown.replace("<", "&lt;"))


def _neutral(match: re.Match[str]) -> str:
    """Example: a backslash before '](' -> '\\\\\\](' (a shown backslash, then an escaped bracket)"""
    slashes, part = match.group(1), match.group(2)
    return slashes * 2 + ("!\\[" if part == "![" else "\\" + part)
