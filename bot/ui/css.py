"""The chat UI's own style sheet, scoped to the citation panel (classes from bot.render.html)."""

from __future__ import annotations

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
