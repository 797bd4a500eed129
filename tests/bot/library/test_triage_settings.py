"""Triage, theme names and "more like this" follow their settings (TriageSettings, ThemeSettings):
changing a number there changes what they return, so no number of theirs hides in the code."""

from __future__ import annotations

import numpy as np
import pytest

from bot.app import Paperbot
from bot.library import theme_names
from bot.library import triage as triage_stage
from bot.search import relevance, similar
from bot.settings import LexicalSettings, ThemeSettings, TriageSettings, load_settings
from bot.store.lexical import LexicalIndex
from bot.types import Paper, Source

pytestmark = pytest.mark.slow

TOPIC = "safe reinforcement learning"


def _triage(bot: Paperbot, **update: object):
    settings = bot.settings.triage.model_copy(update=update)
    return triage_stage.triage(bot.corpus(), TOPIC, bot.embed, bot.chunk_texts, settings)


def test_the_lexical_mix_follows_coverage_share_and_power(seeded_bot: Paperbot) -> None:
    corpus = seeded_bot.corpus()
    query = seeded_bot.embed([TOPIC])[0]
    default = relevance.score_topic(corpus, TOPIC, query, seeded_bot.settings.triage)
    only_bm25 = relevance.score_topic(corpus, TOPIC, query, TriageSettings(coverage_share=0.0))
    linear = relevance.score_topic(corpus, TOPIC, query, TriageSettings(coverage_power=1))
    relative = only_bm25.lexical  # share 0: BM25 relative to the corpus best, alone
    assert float(relative.max()) == pytest.approx(1.0)
    expected = 0.75 * default.coverage**3 + 0.25 * relative
    assert np.allclose(default.lexical, expected, atol=1e-6)
    assert np.allclose(linear.lexical, 0.75 * default.coverage + 0.25 * relative, atol=1e-6)


def test_reasons_are_clipped_to_reason_chars(seeded_bot: Paperbot) -> None:
    default = _triage(seeded_bot)
    assert max(len(p.sentence) for p in default.papers) > 80
    short = _triage(seeded_bot, reason_chars=80)
    assert [p.paper.paper_id for p in short.papers] == [p.paper.paper_id for p in default.papers]
    assert all(len(p.sentence) <= 84 for p in short.papers)  # 80, and the ellipses around a clipped one


def test_the_best_chunk_bonus_picks_the_reason(seeded_bot: Paperbot) -> None:
    """With no bonus the reason is the sentence with the most topic words; with a large one it is a
    sentence of the chunk the embedding matched, for at least one paper of the triage."""
    plain = {p.paper.paper_id: p.sentence for p in _triage(seeded_bot, best_chunk_bonus=0.0).papers}
    chunky = {p.paper.paper_id: p.sentence for p in _triage(seeded_bot, best_chunk_bonus=10.0).papers}
    assert plain.keys() == chunky.keys() and plain != chunky


def _paper(pid: str, text: str) -> Paper:
    return Paper(pid, text, text, pid, "h", (Source("x.txt", line=1),))


def test_theme_names_follow_theme_settings() -> None:
    texts = {
        "a1": "We show that reward models become sparse. Reward models rank answers.",
        "a2": "Reward models become sparse when trained longer, we show; a fix for the reward model.",
        "a3": "We show how reward models become sparse and propose denser reward models.",
        "b1": "Graph neural networks (GNNs) pass messages; message passing over molecules.",
        "b2": "Message passing in graph neural networks (GNNs) predicts molecule properties.",
        "b3": "We study message passing GNNs on molecules with graph neural networks (GNNs).",
    }
    papers = [_paper(pid, t) for pid, t in texts.items()]
    lexical = LexicalIndex.build(texts, LexicalSettings())
    members = [[0, 1, 2], [3, 4, 5]]
    default = theme_names.name_groups(members, papers, lexical, "GNNs")
    assert default == theme_names.name_groups(members, papers, lexical, "GNNs", ThemeSettings())
    assert default[0].startswith("Reward models")
    words = theme_names.name_groups(members, papers, lexical, "GNNs", ThemeSettings(longest_phrase=1))
    assert all(" " not in term for name in words for term in theme_names.terms(name)), words


def test_theme_settings_reach_the_names_a_triage_gives(seeded_bot: Paperbot, monkeypatch) -> None:
    default = [t.name for t in seeded_bot.triage("reinforcement learning").themes]
    monkeypatch.setenv("PAPERBOT_TRIAGE__THEMES__LONGEST_PHRASE", "1")
    settings = load_settings(store=seeded_bot.settings.store, seeds=seeded_bot.settings.seeds, chroma_url=None)
    assert settings.triage.themes.longest_phrase == 1
    bot = Paperbot(settings)
    words = [t.name for t in bot.triage("reinforcement learning").themes]
    assert all(" " not in term for name in words for term in theme_names.terms(name)) and words != default


def test_similar_names_shared_words_only_as_rare_as_similar_rare_idf(seeded_bot: Paperbot) -> None:
    corpus = seeded_bot.corpus()
    paper = next(p for p in corpus.papers.values() if p.label == "Cal-SPI")
    default = similar.like_paper(corpus, paper, 5, seeded_bot.settings.triage)
    assert any(n.shared_terms for n in default.papers)
    strict = similar.like_paper(corpus, paper, 5, TriageSettings(similar_rare_idf=100.0))
    assert [n.paper for n in strict.papers] == [n.paper for n in default.papers]
    assert all(n.shared_terms == () for n in strict.papers)
