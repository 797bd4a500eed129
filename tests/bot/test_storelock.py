"""One writer per store: a second ingest fails at once with a clear message; a dead holder frees it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.errors import StoreError
from bot.registry import Registry
from bot.storelock import writing

HOLD = (
    "import sys, time; from pathlib import Path; from bot.storelock import writing\n"
    "with writing(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(600)\n"
)


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    refused = pytest.raises(StoreError, match=rf"another paperbot process \(pid {os.getpid()}\) is writing")
    with writing(tmp_path), refused, writing(tmp_path):
        pass
    with writing(tmp_path):  # released: free again
        pass


@pytest.mark.slow
def test_ingest_into_a_store_being_written_fails_and_changes_nothing(tmp_path: Path, seeds_dir: Path) -> None:
    store = tmp_path / "store"
    with writing(store):
        run = subprocess.run(
            [sys.executable, "-m", "bot", "--store", str(store), "ingest", str(seeds_dir)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == StoreError.exit_code
    assert f"another paperbot process (pid {os.getpid()}) is writing to the store in {store}" in run.stderr
    assert "Traceback" not in run.stderr
    assert Registry(store).papers() == {}


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match=rf"\(pid {holder.pid}\)"), writing(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with writing(tmp_path):
        pass
