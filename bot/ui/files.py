"""Export files for the download buttons: export text written under one temporary folder, each
file in a folder of its own. No gradio here.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from bot.library.export import EXTENSIONS, FORMATS


def slug(text: str, fallback: str = "papers") -> str:
    """A file-name stem. Example: slug("Safe RL / 2026!") -> 'safe-rl-2026'"""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:60].strip("-")
    return cleaned or fallback


class ExportFiles:
    """Writes export text to files under one temporary folder for the download buttons.

    Each file gets a folder of its own, so two visitors exporting the same name never overwrite
    each other before Gradio has copied the file into its cache.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="paperbot-exports-"))
        self.root.mkdir(parents=True, exist_ok=True)

    def write(self, text: str, stem: str, fmt: str) -> Path:
        """Example: write("@misc{...}", "GRPO", "bibtex") -> <root>/<unique>/paperbot-grpo.bib"""
        folder = Path(tempfile.mkdtemp(dir=self.root))
        path = folder / f"paperbot-{slug(stem)}{EXTENSIONS[fmt]}"
        # newline="" keeps RIS's CRLF line ends as export wrote them.
        with path.open("w", encoding="utf-8", newline="") as out:
            out.write(text)
        return path

    def write_all(self, render: Callable[[str], str], stem: str) -> dict[str, Path]:
        """{format: file} for every export format, `render(format)` giving each file's text."""
        return {fmt: self.write(render(fmt), stem, fmt) for fmt in FORMATS}
