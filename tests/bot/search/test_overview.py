"""What a corpus is about (bot.search.overview) and the relevance cut the chat shares with triage."""

from __future__ import annotations

import pytest

from bot.app import Paperbot
from bot.search import overview
from bot.settings import Settings

TEXTS = [
    "Safe reinforcement learning with large language models (LLMs) for robots.",
    "Large language models are tuned with reinforcement learning from feedback.",
    "Offline reinforcement learning from logged data; this paper shows extensive experiments.",
    "Diffusion models for video generation.",
]


def test_topics_are_the_phrases_most_abstracts_use_longer_ones_standing_in_for_their_parts() -> None:
    found = overview.topics(TEXTS, 5)
    assert found[0] == ("reinforcement learning", 3)
    assert ("large language models", 2) in found
    phrases = [p for p, _ in found]
    assert "large language" not in phrases and "language models" not in phrases
    assert not any(w in p.split() for p in phrases for w in ("paper", "extensive", "experiments"))
    assert "diffusion models" not in phrases  # used by one abstract only
    assert overview.topics(TEXTS, 1) == [("reinforcement learning", 3)]
    assert overview.topics([], 3) == []


@pytest.mark.slow
def test_chat_and_triage_agree_on_what_is_relevant(seeded_bot) -> None:
    """The answer cites only papers the Triage tab would list for the same words (after the best one)."""
    for question in ("diffusion models", "safe reinforcement learning", "GRPO"):
        triaged = {t.paper.paper_id for t in seeded_bot.triage(question).papers}
        answer = seeded_bot.ask(question)
        cited = [c.paper.paper_id for c in answer.citations]
        assert set(cited[1:]) <= triaged, question


@pytest.mark.slow
def test_an_off_topic_question_names_the_corpus_topics_from_the_service(seeded_bot) -> None:
    topics = seeded_bot.searcher.topics(3)
    assert len(topics) == 3 and topics[0][0] == "reinforcement learning"
    assert all(n >= 2 for _, n in topics)


@pytest.mark.slow
def test_a_store_larger_than_the_sample_counts_its_topics_in_a_sample_and_says_they_are_estimates(
    seeded_bot: Paperbot, seeded_store: Settings
) -> None:
    answer = seeded_store.answer.model_copy(update={"overview_sample": 20})
    sampled = Paperbot(seeded_store.model_copy(update={"answer": answer}))
    found = sampled.searcher.topics(6, 20)
    # Each count is a phrase's papers among 20 of the 53, scaled up and rounded to two figures.
    estimates = {overview.estimate(k * 53 / 20) for k in range(2, 21)}
    assert found and all(n in estimates for _, n in found), found
    assert found != seeded_bot.searcher.topics(6)
    said = sampled.ask("a recipe for chocolate cake").markdown
    assert "The 53 abstracts here are mostly about " in said and f"{found[0][0]} (about " in said
    assert "(about " not in seeded_bot.ask("a recipe for chocolate cake").markdown
    assert overview.estimate(41234.5) == 41000 and overview.estimate(7.4) == 7 and overview.estimate(0.3) == 0


def test_a_link_in_an_abstract_makes_no_topic() -> None:
    texts = ["Code at https://github.com/lab/graph-neural-networks here.", "See www.graph-neural.org today."] * 2
    assert not any("github" in p or "neural" in p for p, _ in overview.topics(texts, 5))
    assert overview.topics(["graph neural networks rock", "graph neural networks rock"], 1) == [
        ("graph neural networks", 2)
    ]
