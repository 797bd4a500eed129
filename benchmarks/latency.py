"""The percentile both benchmarks report latencies by (benchmarks/load.py, benchmarks/scale.py).

Not a benchmark: run either of those; each finds this module beside itself.
"""

from __future__ import annotations

import math


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile. Example: percentile([1, 2, 3, 4], 0.5) -> 2"""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]  # e.g. p95 of 40: the 38th
