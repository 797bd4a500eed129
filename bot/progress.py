"""Progress of long work (embedding thousands of papers) on stderr, for people and for logs.

On a terminal it is a live tqdm bar. Elsewhere (CI, `nohup`, a pipe) a bar would be one
long line of carriage returns, so it writes a plain line every `every` seconds with the
count, the rate and the time left, and one when the work is done. It does no work itself.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

Progress = Callable[[int, int], None]  # (papers embedded so far, papers to embed)


def _duration(seconds: float) -> str:
    """Example: _duration(75) -> '1 min 15 s'; _duration(9.4) -> '9 s'"""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def _count(n: int, what: str) -> str:
    """Example: _count(1, "papers") -> '1 paper'; _count(1600, "papers") -> '1,600 papers'"""
    return f"{n:,} {what[:-1] if n == 1 and what.endswith('s') else what}"


class LineProgress:
    """Writes 'embedding: 1,600 of 5,183 papers (31%), 14.2 papers/s, about 4 min 12 s left'."""

    def __init__(
        self, stream: TextIO, what: str = "papers", every: float = 15.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._stream = stream
        self._what = what
        self._every = every
        self._clock = clock
        self._started: float | None = None
        self._last = 0.0
        self._finished = False  # the closing line is written once, however often the end is reported

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        if self._started is None:
            self._started, self._last = now, now
            if total:
                self._write(f"embedding {_count(total, self._what)}")
            return
        finished = done >= total
        if self._finished or (not finished and now - self._last < self._every):
            return
        self._last = now
        elapsed = max(now - self._started, 1e-9)
        rate = done / elapsed
        if finished:
            self._finished = True
            self._write(f"embedded {_count(total, self._what)} in {_duration(elapsed)} ({rate:.1f} {self._what}/s)")
            return
        eta = f", about {_duration((total - done) / rate)} left" if rate > 0 else ""
        self._write(
            f"embedding: {done:,} of {total:,} {self._what} ({done / total:.0%}), {rate:.1f} {self._what}/s{eta}"
        )

    def _write(self, line: str) -> None:
        print(line, file=self._stream, flush=True)


def reporter(stream: TextIO | None = None, what: str = "papers") -> Progress:
    """A live bar on a terminal, plain timed lines anywhere else."""
    out = stream or sys.stderr
    if not out.isatty():
        return LineProgress(out, what)
    from tqdm import tqdm

    bar: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if bar.get("closed"):
            return
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit=what.rstrip("s") or "item", desc="embedding", file=out)
        bar["bar"].n = done
        bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()
            bar["closed"] = True

    return update
