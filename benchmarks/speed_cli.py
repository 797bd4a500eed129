"""paperbot run as a command for benchmarks/speed.py: its environment, wall time and peak RSS.

Runs processes and reads their clocks; knows nothing of the table or the contenders.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def cli_env(**extra: str) -> dict[str, str]:
    """This environment, offline, without a store or server of its own, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PAPERBOT_STORE", "PAPERBOT_CHROMA_URL")}
    return env | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"} | extra


def paperbot_command() -> list[str]:
    script = Path(sys.executable).parent / "paperbot"
    if not script.is_file():
        raise SystemExit(f"no `paperbot` command beside {sys.executable}: install paperbot first (bash .ci/setup)")
    return [str(script)]


def cli_seconds(args: list[str], runs: int, **env: str) -> float:
    """Median wall seconds of `paperbot ARGS` to exit, each a new process, with `env` set."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        run = subprocess.run(
            paperbot_command() + args, cwd=REPO, env=cli_env(**env), capture_output=True, text=True, timeout=1800
        )
        times.append(time.perf_counter() - started)
        if run.returncode != 0:
            raise SystemExit(f"`paperbot {' '.join(args)}` failed ({run.returncode}):\n{run.stderr[-3000:]}")
    return round(statistics.median(times), 3)


# Runs a command and writes its peak RSS (KiB) and wall seconds to argv[1]. A child's ru_maxrss also
# counts the memory image it had before exec, which a child forked from this benchmark (GBs of models
# and stores) shares; forked from this small interpreter (about 10 MB), it is the command's own peak.
RSS_PROBE = """import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{usage.ru_maxrss} {time.perf_counter() - started}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def ask_peak_rss(store: Path, question: str, folder: Path) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of one `paperbot ask Q --json` process, from its own rusage."""
    out, err, probe = folder / "ask.out", folder / "ask.err", folder / "ask.rss"
    command = [sys.executable, "-c", RSS_PROBE, str(probe), *paperbot_command()]
    command += ["--store", str(store), "ask", question, "--json"]
    with out.open("w") as stdout, err.open("w") as stderr:
        env = cli_env(PAPERBOT_GENERATOR__BACKEND="extractive")
        done = subprocess.run(command, cwd=REPO, env=env, stdout=stdout, stderr=stderr, timeout=1800)
    if done.returncode != 0 or not json.loads(out.read_text()).get("answer"):
        raise SystemExit(f"`paperbot ask` over {store} failed ({done.returncode}):\n{err.read_text()[-3000:]}")
    kib, seconds = probe.read_text().split()
    return round(int(kib) / 1024, 1), round(float(seconds), 2)  # ru_maxrss: KiB on Linux
