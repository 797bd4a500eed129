"""The chat UI's own style: the fonts, the page fixes to Gradio's layout, and the citation
panel's sheet (classes from bot.render.html). Plain strings; bot.ui.build turns the fonts into a
Gradio theme, so this module imports no gradio.
"""

from __future__ import annotations

# Font files that ship with Gradio (gradio/templates/frontend/static/fonts), so the page needs no
# network. Only their Regular and Bold files are whole fonts: each SemiBold file there is a
# 5 KB Google Fonts subset (SourceSansPro-SemiBold.woff2 covers 55 code points, of ASCII only
# "A", "B" and space). Gradio's default theme declares that file as the 600 face, so bold text
# took A and B from it and every other letter from the system's DejaVu Sans Bold, whose capitals
# are about 11% taller (0.73 em against 0.65 em): "CARD" read as "CᴀRD". Declaring 400 and 700
# alone makes every weight from 600 up use the whole Bold file.
FONT = "Source Sans Pro"
FONT_MONO = "IBM Plex Mono"
FONT_WEIGHTS = (400, 700)
# After the bundled font: what the system has, if the font file cannot be served.
FONT_FALLBACKS = ("ui-sans-serif", "system-ui", "sans-serif")
FONT_MONO_FALLBACKS = ("ui-monospace", "Consolas", "monospace")

# Chat header: Gradio floats the "Conversation" label and the trash/copy toolbar over the top of
# the scrolling messages, so a question scrolled to the top sat under the icons. The scrolling
# area starts below them instead (label 26 px, toolbar 23 px, plus a gap).
CHAT_HEADER = "32px"

# For `launch(css=...)`; the element ids are set in bot.ui.build and bot.ui.tabs.
PAGE_CSS = f"""
#pb-chat .bubble-wrap {{ margin-top: {CHAT_HEADER}; height: calc(100% - {CHAT_HEADER});
  padding-top: var(--spacing-md); border-top: 1px solid var(--border-color-primary); }}
#pb-list-remove {{ white-space: nowrap; flex: none; width: max-content; }}
"""

# Scoped to the citation panel by gr.HTML's css_template; classes come from render.citations_html.
PANEL_CSS = """
.pb-citation { border: 1px solid var(--border-color-primary); border-radius: 8px;
  padding: 10px 12px; margin-bottom: 10px; background: var(--background-fill-secondary); }
.pb-head { margin-bottom: 4px; }
.pb-where { color: var(--body-text-color-subdued); font-size: 0.85em; }
.pb-title { font-style: italic; margin-bottom: 4px; }
.pb-abstract { font-size: 0.92em; line-height: 1.5; }
.pb-abstract mark { background: #fde68a; color: #111; padding: 0 2px; border-radius: 3px; }
.pb-empty { color: var(--body-text-color-subdued); }
.pb-why { margin-top: 6px; font-size: 0.82em; color: var(--body-text-color-subdued); }
"""
