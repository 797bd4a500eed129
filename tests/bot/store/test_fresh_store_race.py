"""Two writers started together on a fresh store: the loser is told another process is writing,
every time, never Chroma's half-created schema ("table collections already exists").

Each round gives two long-lived worker processes the same new store folder at the same moment;
each opens the store and takes it for writing as an ingest does (the lock, then the fingerprint
check that creates Chroma's files). Workers stay up between rounds, so 100 rounds cost seconds,
not 100 interpreter starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

# STORE_RACE_ROUNDS=1000 runs a longer trial of the same test.
ROUNDS = int(os.environ.get("STORE_RACE_ROUNDS", "100"))

WORKER = """
import sys
from pathlib import Path
from bot.errors import StoreError
from bot.settings import Settings
from bot.store import Store

while line := sys.stdin.readline():
    try:
        store = Store.open(Settings(store=Path(line.strip()), chroma_url=None))
        with store.writing():
            store.prepare_write(False)
            print("held", flush=True)
            sys.stdin.readline()  # the test lets go once the other worker has tried
        store.close()
        print("released", flush=True)
    except StoreError as exc:
        print(f"refused: {exc}", flush=True)
    except Exception as exc:
        print(f"failed: {type(exc).__name__}: {exc}", flush=True)
"""


def _send(worker: subprocess.Popen[str], line: str) -> None:
    assert worker.stdin is not None
    worker.stdin.write(line + "\n")
    worker.stdin.flush()


def _answer(worker: subprocess.Popen[str]) -> str:
    assert worker.stdout is not None
    return worker.stdout.readline().strip()


def test_two_writers_on_a_fresh_store_get_the_lock_message_every_time(tmp_path: Path) -> None:
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outcomes: Counter[str] = Counter()
    odd: list[str] = []
    try:
        for round_ in range(ROUNDS):
            folder = tmp_path / f"store-{round_}"
            # The same folder to both at once, the first one alternating, as two `paperbot ingest` started together.
            order = workers if round_ % 2 == 0 else workers[::-1]
            for worker in order:
                _send(worker, str(folder))
            answers = [_answer(worker) for worker in workers]
            for worker, answer in zip(workers, answers, strict=True):
                if answer == "held":
                    _send(worker, "")
                    assert _answer(worker) == "released"
            kinds = sorted(a.partition(":")[0] for a in answers)
            outcomes[" + ".join(kinds)] += 1
            # The holder's name follows when it has written it already: "(pid 4242 on vm) ".
            told = [a for a in answers if a.startswith("refused: another paperbot process")]
            if kinds != ["held", "refused"] or len(told) != 1 or f"is writing to the store in {folder};" not in told[0]:
                odd.append(f"round {round_}: {answers}")
    finally:
        for worker in workers:
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait(timeout=60)
    print(f"{ROUNDS} rounds: {dict(outcomes)}")
    assert odd == [], f"{len(odd)} of {ROUNDS} rounds did not give one holder and the lock message: {odd[:3]}"
    assert outcomes == {"held + refused": ROUNDS}
