"""The one typed settings object, built once at the entry point and passed down.

Each stage receives only its own section. Nothing here reads the environment at import
time: `Settings()` reads `PAPERBOT_*` variables when it is constructed (nested sections use
a double underscore, e.g. `PAPERBOT_RETRIEVAL__K=20`). The sections live in one module per
group of stages: stored (embed, chunk, lexical, storage), search (retrieval), answer (answer, check,
generator), library (triage and its themes) and root (ui, and the Settings tree itself).
"""

from bot.settings.answer import AnswerSettings, CheckSettings, GeneratorSettings
from bot.settings.library import ThemeSettings, TriageSettings
from bot.settings.root import Settings, UISettings, load_settings, unknown_variables
from bot.settings.search import RetrievalSettings
from bot.settings.stored import ChunkSettings, EmbedSettings, LexicalSettings, StoreSettings

__all__ = [
    "AnswerSettings",
    "CheckSettings",
    "ChunkSettings",
    "EmbedSettings",
    "GeneratorSettings",
    "LexicalSettings",
    "RetrievalSettings",
    "Settings",
    "StoreSettings",
    "ThemeSettings",
    "TriageSettings",
    "UISettings",
    "load_settings",
    "unknown_variables",
]
