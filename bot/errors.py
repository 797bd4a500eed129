"""Every error paperbot raises on purpose, each with a message that says what to do next.

    PaperbotError
    ├── InputError            bad input files; names the file and line or record
    │   ├── MissingPathError  a path that does not exist
    │   └── FormatError       a file we cannot read as abstracts
    │       └── BadRecordError  one record of a file; --skip-bad skips it with a warning
    ├── StoreError            the store cannot be opened or used
    │   ├── FingerprintError  the index was built with other settings
    │   ├── StoreUnavailable  the Chroma server does not answer
    │   ├── StoreReadOnly     a write to a store this process may only read (read-only media or permissions)
    │   └── DiskFull          a write failed for lack of space on the disk holding the store
    ├── ModelError            the embedding model cannot be loaded
    ├── GeneratorError        a language model is missing, down, slow or misconfigured
    ├── SettingsError         a PAPERBOT_* environment variable with a value that cannot be used
    └── QueryError            an empty or unusable question / query file
        ├── UnknownPaperError ids or labels that name no stored paper
        └── UnknownListError  a reading list that does not exist

The core raises these; only the CLI and the UI turn them into exit codes or messages.
"""

from __future__ import annotations


class PaperbotError(Exception):
    """Base of every error paperbot raises on purpose."""

    exit_code = 1


class InputError(PaperbotError):
    """Input that cannot be ingested."""

    exit_code = 2


class MissingPathError(InputError):
    """A path given to ingest does not exist."""


class FormatError(InputError):
    """A file that exists but cannot be read as abstracts."""


# How the warning for a record skipped as bad begins (ingest.readers knows a file with one by it).
SKIPPED = "skipped: "


class BadRecordError(FormatError):
    """One record of a file that cannot be read; with --skip-bad it is skipped with a warning."""

    def __init__(self, where: str, problem: str, fix: str) -> None:
        super().__init__(f"{where}: {problem}; {fix} (or pass --skip-bad)")
        # The warning when it is skipped: passing --skip-bad is no longer advice.
        self.skipped = f"{SKIPPED}{where}: {problem}; {fix}"


class StoreError(PaperbotError):
    """The store cannot be opened, read or written."""

    exit_code = 3


class FingerprintError(StoreError):
    """The stored index was built with different decisive settings."""


class StoreUnavailable(StoreError):
    """The Chroma server cannot be reached."""


class StoreReadOnly(StoreError):
    """A write (ingest, a reading-list change) to a store that can only be read; reads still work."""


class DiskFull(StoreError):
    """A write failed because the disk holding the store (or its cache) is full; the store keeps its last commit."""


class ModelError(PaperbotError):
    """The embedding model cannot be loaded."""

    exit_code = 4


class GeneratorError(PaperbotError):
    """A language-model backend failed; the app answers extractively and says why."""

    exit_code = 5


class SettingsError(PaperbotError):
    """A setting (from a PAPERBOT_* environment variable) that fails validation."""

    exit_code = 2


class QueryError(PaperbotError):
    """A question or query file that cannot be answered."""

    exit_code = 2


class UnknownPaperError(QueryError):
    """Paper ids or labels that match no stored paper (or more than one)."""


class UnknownListError(QueryError):
    """A reading list name that does not exist."""
