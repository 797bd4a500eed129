"""Everything persisted, behind one facade: `Store` (bot.store.store) and the paths of a store folder."""

from bot.store.paths import StorePaths
from bot.store.store import Store

__all__ = ["Store", "StorePaths"]
