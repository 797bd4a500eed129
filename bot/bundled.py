"""Where the files paperbot ships with live: its prompt templates and the seed abstracts.

An installed wheel carries them inside the package (bot/bundled/prompts, bot/bundled/seeds, mapped
from the repository's top-level prompts/ and seeds/ by pyproject.toml); a checkout or an editable
install reads the repository's own folders. It reads no file itself.
"""

from __future__ import annotations

from pathlib import Path

from bot.errors import PaperbotError

_PACKAGE = Path(__file__).resolve().parent
NAMES = ("prompts", "seeds")


def folder(name: str) -> Path:
    """The folder of bundled `name` ('prompts' or 'seeds'): inside the installed package, else the checkout's.

    Example: folder("seeds") -> .../site-packages/bot/bundled/seeds (wheel) or <repo>/seeds (checkout)
    """
    if name not in NAMES:
        raise ValueError(f"no bundled folder {name!r}; choose one of {', '.join(NAMES)}")
    for candidate in (_PACKAGE / "bundled" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise PaperbotError(
        f"paperbot's bundled {name} are missing (looked in {_PACKAGE / 'bundled' / name} and "
        f"{_PACKAGE.parent / name}); reinstall paperbot (`pip install .` from the repository)"
    )
