"""The hybrid retriever (bot.retrieve): score standardisation, restriction, names and acronyms."""

from __future__ import annotations

import numpy as np
import pytest

from bot.query import parse
from bot.search.retrieve import Retriever, _chance, _standardise


def test_standardise_by_hand():
    scores = np.array([9.0, 5.0, 1.0, 0.0])
    spread = np.std([9.0, 5.0, 1.0])
    assert np.allclose(_standardise(scores, 3), (scores - 5.0) / spread)
    assert np.allclose(_standardise(np.array([2.0, 2.0]), 2), [0.0, 0.0])  # no spread: no evidence
    assert _standardise(np.array([]), 3).size == 0


def test_every_paper_is_scored_exactly(seeded_bot):
    """The dense side is exact: each hit's dense score is its best chunk's cosine, whatever its rank."""
    retriever = seeded_bot.retriever()
    papers = len(retriever.corpus.paper_ids)
    result = seeded_bot.search("safe reinforcement learning under constraints", k=papers)
    assert len(result.hits) == papers
    vector = seeded_bot.embed([retriever._lexical.expand("safe reinforcement learning under constraints")])
    similarity = retriever.corpus.vectors.similarity(vector)[0]
    best = {pid: float(similarity[i]) for i, pid in enumerate(retriever.corpus.paper_ids)}
    for hit in result.hits:
        assert hit.dense == pytest.approx(best[hit.paper.paper_id], abs=1e-5)
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)


def test_only_ranks_the_given_papers_with_their_open_scores(seeded_bot):
    query = "which of these use MuJoCo?"
    open_search = {h.paper.paper_id: h.score for h in seeded_bot.search(query, k=53).hits}
    chosen = sorted(open_search)[:3]
    narrowed = seeded_bot.retriever().search_many([query], k=10, only=chosen)[0]
    assert sorted(h.paper.paper_id for h in narrowed.hits) == chosen
    for hit in narrowed.hits:
        assert hit.score == pytest.approx(open_search[hit.paper.paper_id])


def test_a_parsed_question_is_searched_as_its_text(seeded_bot):
    texts = ["is there theory for OPD when the teacher is noisy?", "Which papers use GRPO?"]
    retriever = seeded_bot.retriever()
    assert retriever.search_many([parse(t) for t in texts], k=5) == retriever.search_many(texts, k=5)


def test_a_name_the_embedder_cannot_read_still_finds_its_papers(seeded_bot):
    """'OPD' means nothing to MiniLM; the name bonus and the acronym expansion bring its papers up."""
    query = "is there theory for OPD when the teacher is noisy?"
    top = seeded_bot.search(query, k=3).hits
    assert top and all("OPD" in h.paper.display for h in top[:2])
    plain_settings = seeded_bot.settings.retrieval.model_copy(
        update={
            "name_weight": 0.0,
            "match_weight": 0.0,
            "complete_weight": 0.0,
            "proximity_weight": 0.0,
            "expand_acronyms": False,
            "lexical_weight": 0.0,
        }
    )
    plain = Retriever(seeded_bot.retriever().corpus, seeded_bot.embed, plain_settings).search(query, k=3)
    # MiniLM alone ranks differently (and its best-chunk cosine for the OPD papers is lower).
    assert [h.paper.paper_id for h in plain.hits] != [h.paper.paper_id for h in top]


def test_a_paper_with_every_query_word_gains_exactly_the_complete_weight(seeded_bot):
    """Turning the bonus off lowers the papers with every query word by `complete_weight` and no other."""
    query = "Which papers train vision-language models on video with reinforcement learning?"
    retriever = seeded_bot.retriever()
    every = len(retriever.corpus.paper_ids)
    on = {h.paper.paper_id: h for h in retriever.search(query, k=every).hits}
    off_settings = seeded_bot.settings.retrieval.model_copy(update={"complete_weight": 0.0})
    off = Retriever(retriever.corpus, seeded_bot.embed, off_settings).search(query, k=every).hits
    assert any(on[h.paper.paper_id].coverage == pytest.approx(1.0) for h in off)
    for hit in off:
        full = on[hit.paper.paper_id].coverage >= 1 - 1e-6
        gain = seeded_bot.settings.retrieval.complete_weight if full else 0.0
        assert on[hit.paper.paper_id].score - hit.score == pytest.approx(gain, abs=1e-5)


def test_names_are_three_characters_or_more_with_two_capitals():
    query = "Do AI agents beat RL baselines with GRPO, Q-MMR, fMRI or ReFPO?"
    assert parse(query).names == ("GRPO", "Q-MMR", "fMRI", "ReFPO")


def test_a_two_letter_word_is_no_name(seeded_bot):
    """'AI' is not a name: a paper that says 'AI' but not 'healthcare' must not outrank the healthcare benchmark."""
    top = seeded_bot.search("Which papers introduce benchmarks for AI agents working in healthcare?", k=1).hits
    assert "healthcare" in top[0].paper.display.lower()


def test_chance_grows_with_the_corpus_and_is_nothing_below_the_reference():
    rng = np.random.default_rng(7)
    assert _chance(0.05, 100, reference=100) == 0.0
    big = rng.normal(0.1, 0.05, 8700)
    expected = float(np.std(big)) * (np.sqrt(2 * np.log(8700)) - np.sqrt(2 * np.log(100)))
    assert _chance(float(np.std(big)), len(big), reference=100) == pytest.approx(expected)
    # The correction tracks what luck gives: the best of 8,700 unrelated scores beats the best of 100.
    assert big.max() - rng.normal(0.1, 0.05, 100).max() == pytest.approx(expected, abs=0.05)


def test_abstention_reason_names_the_chance_correction(seeded_bot):
    result = seeded_bot.search("How do I tune a classical guitar to drop D?")
    assert result.abstained
    assert "expected by chance among 53 papers" in result.reason


def test_proximity_adds_its_weighted_z_score_to_every_paper(seeded_bot):
    """The fused score moves by exactly proximity_weight x z(word-pair BM25) when proximity is on."""
    query = "safe policy improvement with calibrated model trust"
    retriever = seeded_bot.retriever()
    papers = len(retriever.corpus.paper_ids)
    with_pairs = {h.paper.paper_id: h.score for h in retriever.search(query, k=papers).hits}
    settings = seeded_bot.settings.retrieval
    off = Retriever(retriever.corpus, seeded_bot.embed, settings.model_copy(update={"proximity_weight": 0.0}))
    without = {h.paper.paper_id: h.score for h in off.search(query, k=papers).hits}
    corpus = retriever.corpus
    pairs = corpus.lexical.pair_scores(query)[corpus.lexical_rows].astype(np.float64)
    z = _standardise(pairs, min(papers, settings.candidates))
    assert settings.proximity_weight > 0 and np.abs(z).max() > 0
    for i, pid in enumerate(corpus.paper_ids):
        assert with_pairs[pid] - without[pid] == pytest.approx(settings.proximity_weight * z[i], abs=1e-5)


def test_score_parts_sum_to_the_score_and_each_is_its_weighted_evidence(seeded_bot):
    """`why.contributions` takes the fused score apart: every part is its weight times its evidence."""
    query = "Is there theory for OPD with a noisy teacher?"
    retriever = seeded_bot.retriever()
    settings = seeded_bot.settings.retrieval
    hits = retriever.search(query, k=len(retriever.corpus.paper_ids)).hits
    corpus = retriever.corpus
    bm25 = corpus.lexical.scores(query)[corpus.lexical_rows].astype(np.float64)
    z = dict(zip(corpus.paper_ids, _standardise(bm25, min(len(bm25), settings.candidates)), strict=True))
    for hit in hits:
        parts = hit.parts
        assert parts is not None
        assert sum(parts.as_dict().values()) == pytest.approx(hit.score, abs=1e-5)
        assert parts.coverage == pytest.approx(settings.match_weight * hit.coverage, abs=1e-5)
        assert parts.bm25 == pytest.approx(settings.lexical_weight * z[hit.paper.paper_id], abs=1e-5)
        assert parts.complete == (settings.complete_weight if hit.coverage >= 1 - 1e-6 else 0.0)
    # Some paper has every query word and gets the bonus for it; most papers do not.
    complete = [h for h in hits if h.parts.complete > 0]
    assert 0 < len(complete) < len(hits) / 2
    assert all(set(h.matched_terms) == set(complete[0].matched_terms) for h in complete)
    # The papers naming OPD get the name bonus; a paper without the name gets none.
    assert hits[0].parts.names > 0 and "OPD" in hits[0].paper.display
    assert all(h.parts.names == 0 for h in hits if "OPD" not in h.paper.display)


def test_how_rare_a_name_must_be_to_count_comes_from_the_settings(seeded_bot):
    """'Q-MMR' is in fewer than rare_name_min seed papers, so naming it keeps a chatty question from
    abstaining; when no name is rare enough to count, the same question abstains."""
    query = "I keep hearing about Q-MMR from a friend, what is that thing?"
    retriever = seeded_bot.retriever()
    settings = seeded_bot.settings.retrieval
    assert not retriever.search(query).abstained
    strict = settings.model_copy(update={"rare_name_min": 0, "rare_name_divisor": 1000})
    assert Retriever(retriever.corpus, seeded_bot.embed, strict).search(query).abstained
