"""Why search found a paper: in --json and in the UI's citation panel."""

from __future__ import annotations

import re

import pytest

from bot.render.html import citations_html
from bot.render.json import search_json
from bot.render.text import search_text
from bot.render.why import why_html


def test_search_json_why_takes_the_score_apart(seeded_bot):
    data = search_json(seeded_bot.search("calibrated model trust for safe policy improvement", k=5))
    for result in data["results"]:
        why = result["why"]
        assert set(why) == {"lexical", "dense", "matched_terms", "coverage", "contributions"}
        assert set(why["contributions"]) == {"bm25", "dense", "proximity", "coverage", "names", "complete"}
        assert sum(why["contributions"].values()) == pytest.approx(result["score"], abs=1e-5)
        assert 0 <= why["lexical"] <= 1 and 0 <= why["coverage"] <= 1
    top = data["results"][0]["why"]
    assert {"calibrated", "trust"} <= set(top["matched_terms"])
    assert top["contributions"]["coverage"] > 0


def test_citation_panel_says_why_each_cited_paper_was_found(seeded_bot):
    answer = seeded_bot.ask("Which papers use MuJoCo?")
    assert answer.citations
    panel = citations_html(answer)
    whys = re.findall(r"<div class='pb-why'>(.*?)</div>", panel)
    assert len(whys) == len(answer.citations)  # one line per cited abstract
    assert all("Matched: " in why and "mujoco" in why and "Score " in why for why in whys)


def test_why_html_escapes_terms_and_orders_parts_by_size(seeded_bot):
    hit = seeded_bot.search("Cal-SPI", k=1).hits[0]
    line = why_html(hit)
    assert line.startswith("<div class='pb-why'>Matched: cal-spi")
    score_line = line.split("<br>")[1]
    sizes = [abs(float(v)) for v in re.findall(r" ([+-]\d+\.\d+)", score_line)]
    assert sizes == sorted(sizes, reverse=True) and sizes
    assert f"Score {hit.score:.2f} = " in score_line


def test_terminal_search_shows_each_papers_score_parts(seeded_bot):
    result = seeded_bot.search("benchmark of healthcare workflows", k=2)
    lines = search_text(result).splitlines()
    assert len(lines) == 6  # per paper: rank line, abstract, score parts
    for hit, line in zip(result.hits, lines[2::3], strict=True):
        assert line.strip().startswith(f"Score {hit.score:.2f} = ") and "query words +" in line
