"""BM25 index: jargon-aware tokenisation and exact rankings on a small corpus."""

import json
import math

import pytest

from bot.settings import LexicalSettings
from bot.store.lexical import LexicalIndex
from bot.text.terms import akin, base_names, pair_tokens, query_pair_tokens, query_words, stem, tokenize

DOCS = {
    "a": "We propose Cal-SPI, a calibrated safe policy improvement method.",
    "b": "GRPO with FP4 rollouts speeds up reinforcement learning for language models.",
    "c": "A benchmark for healthcare agents, χ-Bench, with long-horizon tasks.",
    "d": "Reinforcement learning agents learn policies from rewards in games.",
}


def test_jargon_is_kept_whole_and_split():
    terms = tokenize("Cal-SPI and FP4 on χ-Bench")
    assert "cal-spi" in terms and "cal" in terms and "spi" in terms
    assert "fp4" in terms and "χ-bench" in terms


def test_question_words_are_not_query_terms():
    assert query_words("Which papers use GRPO?") == ["grpo"]


def test_exact_ranking_on_small_corpus():
    index = LexicalIndex.build(DOCS, LexicalSettings())
    ranked = lambda q: [index.paper_ids[i] for i in (-index.scores(q)).argsort()]  # noqa: E731
    assert ranked("Cal-SPI")[0] == "a"
    assert ranked("GRPO FP4 rollouts")[0] == "b"
    assert ranked("χ-Bench healthcare")[0] == "c"
    assert ranked("reinforcement learning agents")[:2] == ["d", "b"]


def test_scores_match_bm25_formula_oracle():
    """Lucene BM25 (k1=1.2, b=0.75, no (k1+1) factor) computed by hand for a one-term query."""
    index = LexicalIndex.build(DOCS, LexicalSettings())
    docs = {pid: tokenize(text) for pid, text in DOCS.items()}
    avg = sum(len(t) for t in docs.values()) / len(docs)
    df = sum("reinforc" in t for t in docs.values())
    idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    scores = index.scores("reinforcement")
    for i, pid in enumerate(index.paper_ids):
        tf = docs[pid].count("reinforc")
        expected = idf * tf / (tf + 1.2 * (0.25 + 0.75 * len(docs[pid]) / avg))
        assert scores[i] == pytest.approx(expected, rel=1e-4)


def test_coverage_weights_rare_words_and_unknown_query():
    index = LexicalIndex.build(DOCS, LexicalSettings())
    share, matched = index.coverage("GRPO cake", DOCS["b"])
    assert matched == ("grpo",)
    assert 0.3 < share < 0.7
    assert index.scores("chocolate cake").sum() == 0


def test_save_and_load_round_trip(tmp_path):
    index = LexicalIndex.build(DOCS, LexicalSettings())
    index.save(tmp_path / "lex", version=7)
    loaded = LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings())
    assert loaded is not None and loaded.paper_ids == index.paper_ids
    assert list(loaded.scores("GRPO")) == pytest.approx(list(index.scores("GRPO")))
    query = "safe policy improvement"
    assert list(loaded.pair_scores(query)) == pytest.approx(list(index.pair_scores(query)))
    assert LexicalIndex.load(tmp_path / "lex", 8, LexicalSettings()) is None


def test_an_index_tokenised_the_old_way_is_rebuilt(tmp_path):
    LexicalIndex.build(DOCS, LexicalSettings()).save(tmp_path / "lex", version=7)
    meta_path = tmp_path / "lex" / "index.json"
    meta = json.loads(meta_path.read_text())
    del meta["tokens"]  # as saved before plural acronyms were stemmed (and before word pairs existed)
    meta_path.write_text(json.dumps(meta))
    assert LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings()) is None


def test_k1_and_b_shape_the_scores_and_are_recorded_with_the_index(tmp_path):
    index = LexicalIndex.build(DOCS, LexicalSettings())
    other = LexicalIndex.build(DOCS, LexicalSettings(k1=2.0, b=0.3))
    assert list(other.scores("GRPO")) != pytest.approx(list(index.scores("GRPO")))
    other.save(tmp_path / "lex", version=7)
    assert (json.loads((tmp_path / "lex" / "index.json").read_text())["k1"]) == 2.0
    assert LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings()) is None  # built otherwise: rebuilt
    loaded = LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings(k1=2.0, b=0.3))
    assert loaded is not None and list(loaded.scores("GRPO")) == pytest.approx(list(other.scores("GRPO")))


def test_an_index_saved_before_k1_and_b_were_recorded_counts_as_the_defaults_it_was_built_with(tmp_path):
    LexicalIndex.build(DOCS, LexicalSettings()).save(tmp_path / "lex", version=7)
    meta_path = tmp_path / "lex" / "index.json"
    meta = json.loads(meta_path.read_text())
    assert (meta.pop("k1"), meta.pop("b")) == (1.2, 0.75)
    meta_path.write_text(json.dumps(meta))  # as every store saved it before
    assert LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings()) is not None  # existing stores are not rebuilt
    assert LexicalIndex.load(tmp_path / "lex", 7, LexicalSettings(b=0.5)) is None


def test_plural_acronyms_match_their_singular():
    assert [stem(w) for w in ["llms", "gnns", "dqns", "models", "gans", "class", "gps"]] == [
        "llm",
        "gnn",
        "dqn",
        "model",
        "gan",
        "class",
        "gp",
    ]
    index = LexicalIndex.build(
        {**DOCS, "e": "An LLM-based recommender.", "f": "Recommender models."}, LexicalSettings()
    )
    ranked = [index.paper_ids[i] for i in (-index.scores("LLMs for recommenders")).argsort()]
    assert ranked[0] == "e"
    assert index.coverage("LLMs", "An LLM-based recommender.")[0] == 1.0


def test_word_pairs_are_neighbours_in_either_order():
    assert pair_tokens("IL-6 expression rises") == pair_tokens("rises expression IL-6")[::-1]
    assert pair_tokens("the expression of IL-6") == ["express_il-6"]  # stopwords between do not separate
    assert query_pair_tokens("Which papers use GRPO?") == []


def test_papers_with_the_words_side_by_side_score_on_proximity():
    index = LexicalIndex.build(
        {
            "near": "Policy improvement that is safe under calibrated trust.",
            "far": "A safe policy for robots. Improvement of runtime comes from caching.",
            "none": "Penguin colonies counted from drone images.",
        },
        LexicalSettings(),
    )
    scores = dict(zip(index.paper_ids, index.pair_scores("policy improvement"), strict=True))
    assert scores["near"] > 0 and scores["far"] == 0 and scores["none"] == 0
    assert not index.pair_scores("policy").any()  # one word has no pairs


def test_empty_index_scores_nothing():
    index = LexicalIndex.build({}, LexicalSettings())
    assert len(index.scores("anything")) == 0
    assert index.coverage("anything", "anything at all")[1] == ("anything",)


def test_a_query_matches_compounds_by_their_parts():
    index = LexicalIndex.build({**DOCS, "e": "Multi-agent systems coordinate many agents."}, LexicalSettings())
    assert index.query_terms("multi-agent MuJoCo") == ["multi", "agent", "mujoco"]
    assert index.query_terms("Cal-SPI") == ["cal", "spi"]
    assert index.query_terms("zeta-omega") == ["zeta", "omega"]
    # a paper writing the compound without its hyphen is found by the parts
    index = LexicalIndex.build(
        {**DOCS, "e": "Multi-agent systems coordinate.", "f": "A multi agent benchmark."}, LexicalSettings()
    )
    ranked = [index.paper_ids[i] for i in (-index.scores("multi-agent benchmark")).argsort()]
    assert ranked[0] == "f"
    assert index.coverage("Cal-SPI", DOCS["a"])[1] == ("cal-spi",)  # coverage still sees it whole
    assert index.doc_freq("GRPO") == 1 and index.doc_freq("nonexistent") == 0


def test_an_acronym_matches_papers_that_spell_it_out():
    docs = {
        "def": "Large language models (LLMs) write code.",
        "spelled": "Recommenders built on large language models.",
        "loose": "Large-scale recommenders; language is one of many models' inputs.",
        "none": "Recommenders built on matrix factorisation.",
    }
    index = LexicalIndex.build(docs, LexicalSettings())
    assert index.spelled_out("llms") == index.spelled_out("llm") == ["languag_larg", "languag_model"]
    present = {word: dict(zip(index.paper_ids, p, strict=True)) for word, _, p in index.word_presence("LLMs")}
    # the long form must appear as neighbouring words, not scattered
    assert present["llms"] == {"def": True, "spelled": True, "loose": False, "none": False}
    assert index.coverage("LLMs", docs["spelled"]) == (1.0, ("llms",))
    assert index.coverage("LLMs", docs["loose"])[0] == 0.0


def test_latin_abbreviations_and_question_verbs_are_not_words():
    assert tokenize("methods, e.g. PPO, vs. DQN (Mnih et al.), i.e. Q-learning") == [
        "method",
        "ppo",
        "dqn",
        "mnih",
        "q-learning",
        "learn",
    ]
    assert query_words("papers doing recs, e.g. with LLMs") == ["recs", "llms"]


def test_set_phrases_of_a_question_are_not_query_words():
    assert query_words("Which papers use deep Q-learning as part of their method?") == ["deep", "q-learning"]
    assert query_words("a reward that works at the same time") == ["reward"]
    assert query_words("Which papers deal with power grids?") == ["power", "grids"]
    assert query_words("part segmentation in time") == ["part", "segmentation", "time"]  # the words alone stay


def test_building_from_numbered_terms_scores_as_bm25s_does_from_the_term_lists():
    import bm25s
    import numpy as np

    docs = DOCS | {"e": "", "f": "— 42 —"}  # texts without a term index as bm25s's empty token
    index = LexicalIndex.build(docs, LexicalSettings())
    plain = bm25s.BM25(k1=1.2, b=0.75)
    plain.index([tokenize(docs[pid]) or [""] for pid in index.paper_ids], show_progress=False)
    for query in ("reinforcement learning agents", "Cal-SPI", "benchmark healthcare χ-Bench"):
        terms = [t for t in index.query_terms(query) if t in plain.vocab_dict]
        assert np.allclose(index.scores(query), plain.get_scores(terms), atol=1e-6)
    assert index.scores("GRPO")[index.paper_ids.index("e")] == 0


def _holders(index: LexicalIndex, query: str) -> dict[str, list[str]]:
    """Each word of `query` and the papers `word_presence` finds it in, in index order."""
    return {
        word: [pid for pid, held in zip(index.paper_ids, mask.tolist(), strict=True) if held]
        for word, _, mask in index.word_presence(query)
    }


def test_a_name_others_are_built_on_is_present_inside_them():
    """ "MuJoCo", written with a capital inside, is also in "MaMuJoCo" (the multi-agent MuJoCo); a plain
    lower-case word is not in the words ending with it."""
    docs = {"a": "A study on MaMuJoCo tasks.", "b": "Experiments on MuJoCo.", "c": "Machine unlearning for models."}
    index = LexicalIndex.build(docs, LexicalSettings())
    assert base_names("on MuJoCo with GRPO, WebArena and Q-MMR") == {"mujoco", "webarena"}
    assert _holders(index, "MuJoCo") == {"mujoco": ["a", "b"]}
    assert _holders(index, "mujoco") == {"mujoco": ["b"]}
    assert _holders(index, "learning") == {"learning": []}
    assert index.coverage("MuJoCo", docs["a"]) == (1.0, ("mujoco",))
    assert index.coverage("mujoco", docs["a"])[0] == 0.0


def test_plain_words_for_a_comparison_are_found_as_an_abstract_writes_them():
    """ "beat plain SFT" is said by "outperform standard SFT"; such a word weighs as rare as any of its family
    is, not as rare as the plain word alone ("standard" is common in abstracts, "plain" is not)."""
    docs = {
        "a": "OPD can outperform standard SFT.",
        "b": "A standard benchmark for agents.",
        "c": "Plain models on standard tasks.",
        "d": "Reinforcement learning agents.",
    }
    index = LexicalIndex.build(docs, LexicalSettings())
    assert akin("beating") == {"outperform", "surpass"} and akin("GRPO") == frozenset()
    holders = _holders(index, "beat plain SFT")
    assert holders["beat"] == ["a"]
    assert holders["plain"] == ["a", "b", "c"]
    # "plain" alone is in one paper of four, its family in three: the weight of a word in three
    weight = {word: w for word, w, _ in index.word_presence("beat plain SFT")}["plain"]
    assert weight == pytest.approx(index.idf("standard")) and weight < index.idf("plain")
    assert index.coverage("beat plain SFT", docs["a"]) == (1.0, ("beat", "plain", "sft"))


def test_a_long_form_in_the_query_is_held_by_papers_writing_the_acronym():
    """Found by a new user: "large language models for recommendation" missed the paper proposing "an LLM-based
    framework for cross-domain recommendation". Not for an acronym of two letters ("IL" is not only imitation
    learning)."""
    docs = {
        "a": "Large language models (LLMs) write profiles. Imitation learning (IL) from demonstrations.",
        "b": "An LLM-based framework for recommendation.",
        "c": "IL for robots.",
    }
    index = LexicalIndex.build(docs, LexicalSettings())
    assert _holders(index, "large language models for recommendation") == {
        "large": ["a", "b"],
        "language": ["a", "b"],
        "models": ["a", "b"],
        "recommendation": ["b"],
    }
    assert _holders(index, "imitation learning")["imitation"] == ["a"]
    assert index.coverage("large language models for recommendation", docs["b"])[0] == 1.0
