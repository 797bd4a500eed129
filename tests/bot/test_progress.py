"""Progress lines for long work when stderr is not a terminal."""

from __future__ import annotations

import io

from bot.progress import LineProgress, reporter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_are_timed_and_say_what_is_left() -> None:
    out, clock = io.StringIO(), Clock()
    progress = LineProgress(out, every=10, clock=clock)
    progress(0, 1000)
    clock.now += 5
    progress(100, 1000)  # too soon after the last line: nothing written
    clock.now += 5
    progress(200, 1000)  # 200 papers in 10 s -> 20 papers/s, 800 left -> 40 s
    clock.now += 30
    progress(1000, 1000)
    lines = out.getvalue().splitlines()
    assert lines == [
        "embedding 1,000 papers",
        "embedding: 200 of 1,000 papers (20%), 20.0 papers/s, about 40 s left",
        "embedded 1,000 papers in 40 s (25.0 papers/s)",
    ]


def test_nothing_to_embed_writes_nothing() -> None:
    out = io.StringIO()
    LineProgress(out)(0, 0)
    assert out.getvalue() == ""


def test_a_pipe_gets_lines_not_a_bar() -> None:
    out = io.StringIO()
    assert isinstance(reporter(out), LineProgress)


def test_the_end_is_written_once_however_often_it_is_reported() -> None:
    """Ingest reports the end again as it commits; a log must not repeat the closing line."""
    out, clock = io.StringIO(), Clock()
    progress = LineProgress(out, every=10, clock=clock)
    progress(0, 1)
    for _ in range(5):
        clock.now += 20
        progress(1, 1)
    assert out.getvalue().splitlines() == ["embedding 1 paper", "embedded 1 paper in 20 s (0.1 papers/s)"]
