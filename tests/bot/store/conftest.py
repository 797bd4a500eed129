"""Fixtures of the store tests: real `chroma run` servers on free ports, and a small store ingested again."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.settings import Settings
from bot.types import IngestReport

CHROMA = Path(sys.executable).parent / "chroma"
STARTUP_SECONDS = 60


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ChromaServer:
    url: str
    path: Path
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def _start(path: Path) -> ChromaServer:
    assert CHROMA.is_file(), f"the chroma CLI is not installed next to {sys.executable}"
    port = _free_port()
    log = path.with_suffix(".log")
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(CHROMA), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = ChromaServer(f"http://127.0.0.1:{port}", path, process, log)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"{server.url}/api/v2/heartbeat", timeout=2) as reply:
                if reply.status == 200:
                    return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    tail = log.read_text(errors="replace")[-2000:]
    pytest.fail(f"chroma server did not answer its heartbeat at {server.url}:\n{tail}")


@pytest.fixture
def chroma_servers(tmp_path: Path) -> Iterator[Callable[[str], ChromaServer]]:
    """start(name) runs a fresh Chroma server on a free port; all are stopped afterwards."""
    started: list[ChromaServer] = []

    def start(name: str) -> ChromaServer:
        server = _start(tmp_path / name)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def free_port() -> Callable[[], int]:
    """A port nothing listens on (yet)."""
    return _free_port


@dataclass
class Ingests:
    """A store of two small abstracts from one file, ingested again with what each test writes there."""

    settings: Settings
    texts: list[str]  # the small abstracts, the first two stored
    papers: Path
    write: Callable[..., Path]
    run: Callable[..., Any]
    caplog: pytest.LogCaptureFixture

    def again(self, abstracts: list[str], header: str = "ICML 2025", **options: Any) -> tuple[IngestReport, str]:
        """Write `abstracts` to the file and ingest it (`options` as pipeline.run's); the report and the
        store's log lines. Example: ingests.again([edited, texts[1]]) -> (IngestReport(...), "updated ...")"""
        self.write(self.papers, abstracts, header=header)
        self.caplog.clear()
        with self.caplog.at_level(logging.INFO, logger="bot.store.store"):
            report = self.run(self.settings, [self.papers], **options)
        return report, self.caplog.text


@pytest.fixture
def ingests(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
) -> Ingests:
    """A store whose first ingest (two small abstracts) built its BM25 index and vector cache in full."""
    texts = list(small_abstracts.values())
    settings = settings_for(tmp_path / "store")
    papers = write_abstracts(tmp_path / "papers.txt", texts[:2])
    assert run_ingest(settings, [papers]).added == 2
    return Ingests(settings, texts, papers, write_abstracts, run_ingest, caplog)
