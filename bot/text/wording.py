"""English for counts in messages: "1 paper", "3 papers"; the one plural helper messages use."""

from __future__ import annotations


def plural(n: int, noun: str = "paper") -> str:
    """Example: plural(1) -> '1 paper'; plural(3) -> '3 papers'"""
    return f"{n} {noun}{'' if n == 1 else 's'}"
