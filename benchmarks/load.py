"""How the chat server holds up under many readers: `paperbot serve` on a seeded store, asked by
simulated users through the HTTP API the browser's chat uses.

Not a test (pytest does not collect it): a benchmark that prints measured numbers. It starts
`python -m bot serve` on a store (a temporary one holding the bundled seeds unless --store is
given), then for each user count runs that many users for --seconds, each on a new server (so no
run finds the previous one's cached vectors). A user is a browser tab (a gradio_client session):
it asks a question of the repository's question sets (answered extractively) through the chat's
own event, /chat, sending its conversation as the page does, waits for the finished answer, reads
it for a think time drawn from --think, and asks again; every 5 questions it starts a new
conversation. No text is asked twice (see `Deck`). Only questions asked before the time is up count.

Reported per user count: answers finished, throughput (answers per second), latency p50/p95/max
(seconds from sending the question to the finished answer; p95 also for the questions asked after
the first 10 s), errors (by kind; a full queue is "busy", a polite failure reply is "reply: ..."),
the server's CPU use (of the 2 cores here, 200% is all) and the machine's load average.
Run: .venv/bin/python benchmarks/load.py --users 20 50 --seconds 60
     .venv/bin/python benchmarks/load.py --store /tmp/seeded --users 3 --seconds 5 --json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from latency import percentile

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
QUESTIONS = (DATA / "questions.jsonl", DATA / "heldout.jsonl", DATA / "answers" / "questions.jsonl")
ENDPOINTS = ("chat", "ask")  # chat: the browser's streamed event; ask: the one-shot API
FAILED_REPLY = "Sorry, I could not answer that"  # bot.render.messages.error_reply's opening


@dataclass
class Outcome:
    """What the users of one run saw, filled by their threads."""

    answered: list[tuple[float, float]] = field(default_factory=list)  # (asked at, seconds to the answer)
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, asked: float, latency: float, error: str | None) -> None:
        with self.lock:
            if error is None:
                self.answered.append((asked, latency))
            else:
                self.errors[error] += 1


def questions() -> list[str]:
    """The repository's self-contained questions (follow-ups left out), all answered extractively."""
    asked: list[str] = []
    for path in QUESTIONS:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        asked += [row["question"] for row in rows if not row.get("previous")]
    return list(dict.fromkeys(asked))


class Deck:
    """Questions dealt one at a time to every user, never the same text twice.

    A reader types their own words, so a question's vector is never in the server's cache of recent
    texts: each of the repository's questions comes with several endings and in two cases, shuffled.
    Example: 174 questions x 8 endings x 2 cases = 2,784 texts, more than 50 users ask in 60 s
    """

    ENDINGS = ("", " Thanks!", " Thank you.", " Thanks a lot.", " Cheers.", " Please.", " Any ideas?", " Cheers!")

    def __init__(self, base: list[str], seed: int = 0) -> None:
        texts = list(dict.fromkeys(t for q in base for e in self.ENDINGS for t in (q + e, (q + e).lower())))
        random.Random(seed).shuffle(texts)
        self._texts = itertools.cycle(texts)  # past the last one they come again (and are cached)
        self._lock = threading.Lock()

    def deal(self) -> str:
        with self._lock:
            return next(self._texts)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def seed_store(folder: Path) -> None:
    """Ingest the bundled seeds into `folder`, as `paperbot ingest` does."""
    run = subprocess.run(
        [sys.executable, "-m", "bot", "--store", str(folder), "ingest"],
        cwd=REPO,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if run.returncode != 0:
        raise SystemExit(f"ingesting the seeds into {folder} failed:\n{run.stderr}")


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without PAPERBOT_* and GRADIO_* settings, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "GRADIO_"))}
    env.update(PYTHONUNBUFFERED="1", PAPERBOT_GENERATOR__BACKEND="extractive", **extra)
    return env


@contextmanager
def served(
    store: Path, log: Path, env: dict[str, str] | None = None, timeout: float = 180
) -> Iterator[tuple[str, int]]:
    """A running `python -m bot serve` on `store` (URL, pid), its output in `log`; stopped after."""
    port = free_port()
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--store", str(store), "serve", "--port", str(port)],
            cwd=REPO,
            env=_clean_env(**(env or {})),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while "chat UI running at" not in log.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Endpoint:
    """How the page calls one event: its index in the app's config and the widget that triggers it."""

    name: str
    fn_index: int
    trigger_id: int | None

    @classmethod
    def find(cls, url: str, name: str) -> Endpoint:
        """Example: Endpoint.find(url, "chat") -> Endpoint('chat', 2, 7) (the question box's submit)"""
        config = httpx.get(f"{url}/config", timeout=30).json()
        event = next(d for d in config["dependencies"] if d.get("api_name") == name)
        targets = event.get("targets") or [[None]]
        return cls(name, int(event["id"]), targets[0][0])


class Session:
    """One browser tab, speaking the page's own protocol: each question joins the queue
    (/gradio_api/queue/join) under the tab's session id and the answer streams back on
    /gradio_api/queue/data, so the server keeps the tab's state (the last answer, which a follow-up
    refers to) as it does a page's, and the chat history goes back with each question.

    After `turns` questions the reader starts a new conversation, as the chat's trash icon does.
    Example: Session(url, Endpoint.find(url, "chat")).ask("What does Cal-SPI do?") -> None (answered)
    """

    def __init__(self, url: str, endpoint: Endpoint, turns: int = 5, timeout: float = 120) -> None:
        self.http = httpx.Client(base_url=url, timeout=timeout)
        self.endpoint, self.turns = endpoint, turns
        self.session = uuid.uuid4().hex[:11]
        self.history: list[Any] = []

    def ask(self, question: str) -> str | None:
        """Ask and wait for the finished answer; None, or what went wrong."""
        chat = self.endpoint.name == "chat"
        data = [question, self.history, None, None] if chat else [question]  # None: the tab's State
        body = {"data": data, "fn_index": self.endpoint.fn_index, "trigger_id": self.endpoint.trigger_id}
        try:
            joined = self.http.post("/gradio_api/queue/join", json={**body, "session_hash": self.session})
            if joined.status_code == 503:
                return "busy"  # the queue is full: refused at once
            if joined.status_code != 200:
                return f"HTTP {joined.status_code}"
            done = self._completed(joined.json()["event_id"])
        except httpx.TimeoutException:
            return "timeout"
        except httpx.HTTPError as exc:
            return type(exc).__name__
        if done is None or not done.get("success"):
            return "error event" if done is not None else "stream closed before the answer"
        if not chat:
            return None
        self.history = list(done["output"]["data"][0])
        reply = self.history[-1]["content"] if self.history else ""
        text = " ".join(p.get("text", "") for p in reply) if isinstance(reply, list) else str(reply)
        if len(self.history) >= 2 * self.turns:
            self.history, self.session = [], uuid.uuid4().hex[:11]
        # The chat turns core failures into a polite reply: under load that is an error all the same.
        return "reply: " + text[:60] if text.startswith(FAILED_REPLY) else None

    def _completed(self, event_id: str) -> dict[str, Any] | None:
        """The event's process_completed message from the tab's stream, None if the stream closed first."""
        with self.http.stream("GET", "/gradio_api/queue/data", params={"session_hash": self.session}) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line.removeprefix("data:"))
                if message.get("msg") == "process_completed" and message.get("event_id") == event_id:
                    return dict(message)
                if message.get("msg") == "close_stream":
                    return None
        return None


def user(
    url: str, endpoint: Endpoint, deck: Deck, until: float, think: tuple[float, float], seed: int, out: Outcome
) -> None:
    """One reader: ask, wait for the answer, read it for a while, ask again until `until`."""
    rng = random.Random(seed)
    session = Session(url, endpoint)
    while time.monotonic() < until:
        started = time.monotonic()
        error = session.ask(deck.deal())
        out.record(started, time.monotonic() - started, error)
        time.sleep(rng.uniform(*think))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(
    url: str, pid: int, users: int, seconds: float, endpoint: Endpoint, think: tuple[float, float], deck: Deck
) -> dict[str, object]:
    """`users` readers for `seconds` against the server at `url`; the numbers of one run."""
    out = Outcome()
    load_before, cpu_before, started = os.getloadavg()[0], _cpu_seconds(pid), time.monotonic()
    until = started + seconds
    threads = [
        threading.Thread(target=user, args=(url, endpoint, deck, until, think, n, out), daemon=True)
        for n in range(users)
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # users arrive over a moment, not all in the same millisecond
    for thread in threads:
        thread.join(timeout=seconds + 180)
    elapsed = time.monotonic() - started
    lat = [seconds for _, seconds in out.answered]
    # Past the first 10 s the abstracts most asked about have their sentence vectors cached.
    later = [seconds for asked, seconds in out.answered if asked >= started + 10]
    return {
        "users": users,
        "seconds": round(elapsed, 1),
        "answers": len(lat),
        "throughput_per_s": round(len(lat) / elapsed, 2),
        "p50_s": round(percentile(lat, 0.50), 2) if lat else None,
        "p95_s": round(percentile(lat, 0.95), 2) if lat else None,
        "max_s": round(max(lat), 2) if lat else None,
        "p95_after_10s_s": round(percentile(later, 0.95), 2) if later else None,
        "errors": sum(out.errors.values()),
        "error_kinds": dict(out.errors),
        "server_cpu_percent": round(100 * (_cpu_seconds(pid) - cpu_before) / elapsed),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def warm(url: str, endpoint: Endpoint, asked: list[str]) -> float:
    """Ask `asked` one after another (loading the model and the corpus, and caching the vectors of
    the abstract sentences they cite); the seconds it took."""
    started, session = time.monotonic(), Session(url, endpoint, timeout=300)
    for question in asked:
        error = session.ask(question)
        if error is not None:
            raise SystemExit(f"warming up: {question!r} failed: {error}")
    return time.monotonic() - started


def alone(url: str, endpoint: Endpoint, deck: Deck, count: int = 20) -> float:
    """The median seconds of `count` new questions asked one after another by a single user."""
    times, session = [], Session(url, endpoint)
    for _ in range(count):
        started = time.monotonic()
        if session.ask(deck.deal()) is None:
            times.append(time.monotonic() - started)
    return round(statistics.median(times), 3) if times else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", type=Path, help="a store holding papers (default: a temporary one with the seeds)")
    parser.add_argument("--users", type=int, nargs="*", default=[20, 50], help="user counts, one run each")
    parser.add_argument("--seconds", type=float, default=60, help="length of each run (default 60)")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(2.0, 8.0),
        metavar=("MIN", "MAX"),
        help="seconds a user reads an answer before the next question, drawn uniformly (default 2 8)",
    )
    parser.add_argument("--endpoint", choices=ENDPOINTS, default="chat", help="the API route asked (default chat)")
    parser.add_argument("--env", nargs="*", default=[], metavar="NAME=VALUE", help="settings for the server")
    parser.add_argument(
        "--warm",
        choices=("one", "all"),
        default="one",
        help="before timing, ask one question (a server just started; default) or every question once",
    )
    parser.add_argument("--alone", type=int, default=20, help="questions one user asks first, timed (0: none)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per run")
    args = parser.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    asked = questions()
    # A server that has answered every question once has the abstracts' sentence vectors cached;
    # one just started has only its model loaded.
    warm_up = asked if args.warm == "all" else asked[:1]
    with tempfile.TemporaryDirectory(prefix="paperbot-load-") as scratch:
        store = args.store
        if store is None:
            store = Path(scratch) / "store"
            seed_store(store)
        if args.alone > 0:
            with served(store, Path(scratch) / "alone.log", env) as (url, _):
                endpoint = Endpoint.find(url, args.endpoint)
                warm(url, endpoint, warm_up)
                single = alone(url, endpoint, Deck(asked, seed=-1), args.alone)
            report(args.json, {"users": 1, "alone_s": single, "warm": args.warm})
        for users in args.users:
            # A new server for each run, so that one run's cached vectors do not speed up the next.
            with served(store, Path(scratch) / f"users-{users}.log", env) as (url, pid):
                endpoint = Endpoint.find(url, args.endpoint)
                warm(url, endpoint, warm_up)
                numbers = run(url, pid, users, args.seconds, endpoint, tuple(args.think), Deck(asked, seed=users))
            report(args.json, {**numbers, "warm": args.warm})
    return 0


def report(as_json: bool, numbers: dict[str, object]) -> None:
    """One run's numbers on one line, as JSON or as a sentence."""
    if as_json:
        print(json.dumps(numbers), flush=True)
    elif "p50_s" not in numbers:
        print(f"one user alone: median {numbers['alone_s']} s per answer (warm-up: {numbers['warm']})", flush=True)
    else:
        print(
            f"{numbers['users']} users, {numbers['seconds']} s: {numbers['answers']} answers, "
            f"{numbers['throughput_per_s']}/s, p50 {numbers['p50_s']} s, p95 {numbers['p95_s']} s, "
            f"max {numbers['max_s']} s, errors {numbers['errors']} {numbers['error_kinds'] or ''}, "
            f"server CPU {numbers['server_cpu_percent']}%, load {numbers['load_before']} -> {numbers['load_after']}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
