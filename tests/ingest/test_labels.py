"""ingest.labels on small inline texts: introduced names, fallback phrases, distinct labels."""

from __future__ import annotations

import pytest

from ingest.labels import assign, candidates, described, phrase


def test_candidates_find_the_introduced_name() -> None:
    assert candidates("We propose CausalBind, a binder. CausalBind wins.") == ["CausalBind"]


def test_acronym_in_parentheses_beats_its_long_form_and_background_acronyms() -> None:
    text = (
        "Safe Policy Improvement (SPI) aims to improve a policy. We propose Calibrated Safe "
        "Policy Improvement (Cal-SPI), a method. Cal-SPI learns a model."
    )
    assert candidates(text)[0] == "Cal-SPI"
    assert "SPI" not in candidates(text)


def test_greek_prefixed_names_are_names() -> None:
    text = "We introduce χ-Bench, a benchmark of long workflows. On χ-Bench, agents fail."
    assert candidates(text)[0] == "χ-Bench"


def test_common_acronyms_and_descriptive_compounds_are_not_names() -> None:
    text = (
        "Large language models (LLMs) trained with GRPO and PPO are unstable. We study "
        "Multi-Agent settings with LLM-based critics."
    )
    assert candidates(text) == []


def test_phrase_takes_the_subject_of_the_first_sentence() -> None:
    assert phrase("Critical sequential decisions are rarely single-timescale.") == ("Critical sequential decisions")
    assert phrase("The dynamics of deep networks remain poorly understood.") == ("Dynamics of deep networks")
    assert phrase("Event sequences: a survey of models. More text.") == "Event sequences"


def test_assign_prefers_the_introduced_name_then_the_phrase() -> None:
    texts = {
        "p1": "We propose FooNet, a net for cats. FooNet wins.",
        "p2": "Graph networks are used for molecules. They work.",
    }
    assert assign(texts, set()) == {"p1": "FooNet", "p2": "Graph networks"}


def test_two_papers_introducing_the_same_name_get_distinct_labels() -> None:
    texts = {
        "p1": "We propose FooNet, a net for cats. FooNet wins.",
        "p2": "We propose FooNet, a net for dogs. FooNet is good.",
    }
    labels = assign(texts, set())
    assert labels["p1"] == "FooNet"  # papers are labelled in id order: p1 first
    assert labels["p2"] != "FooNet" and "FooNet" in labels["p2"]


def test_identical_phrases_are_numbered() -> None:
    texts = {
        "p1": "Graph networks are used for molecules. They work.",
        "p2": "Graph networks are used for proteins. They fail.",
        "p3": "Graph networks are used for crystals. They help.",
    }
    assert assign(texts, set()) == {"p1": "Graph networks", "p2": "Graph networks (2)", "p3": "Graph networks (3)"}


def test_assign_avoids_labels_already_taken_ignoring_case() -> None:
    text = "We propose FooNet, a net for cats. FooNet wins."
    assert assign({"p9": text}, {"foonet"})["p9"] != "FooNet"
    assert assign({"p9": text}, {"Graph networks"}) == {"p9": "FooNet"}


def test_assign_is_deterministic_and_distinct_on_a_mixed_corpus() -> None:
    texts = {
        f"p{i}": t
        for i, t in enumerate(
            [
                "We propose FooNet, a net. FooNet wins.",
                "We propose FooNet, another net. FooNet wins again.",
                "We introduce BarBench, a benchmark. BarBench is hard.",
                "Graph networks are used. They work.",
                "Graph networks are used. They fail.",
                "Deep decarbonization needs planning. We model it.",
            ]
        )
    }
    first = assign(texts, set())
    assert first == assign(dict(reversed(list(texts.items()))), set())
    assert len({label.lower() for label in first.values()}) == len(texts)
    assert all(label.strip() for label in first.values())


def test_titled_papers_are_labelled_from_their_title():
    from ingest.labels import assign, from_title

    assert from_title("CausalBind: Causal Binding for Virtual Screening") == "CausalBind"
    assert from_title("Statistical Learning and Inverse Problems") == "Statistical Learning and Inverse Problems"
    got = assign(
        {"p1": "We propose FooNet.", "p2": "We propose FooNet too."},
        set(),
        {"p1": "FooNet: fast nets", "p2": "FooNet: faster nets"},
    )
    assert got["p1"] == "FooNet" and got["p2"] == "FooNet: faster nets"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        (
            "Grids are hard to run. We propose a heterogeneous risk-constrained reinforcement learning framework for "
            "low-carbon grid operation.",
            "Heterogeneous risk-constrained reinforcement learning framework",
        ),
        ("Data is noisy. We propose a noisy expert model to explain this gap.", "Noisy expert model"),
        ("STPPs lack tooling. We present Seahorse, a unified framework for experiments.", "Seahorse"),
        ("We frame this design choice as a budget-allocation problem.", None),  # "design" is not the verb here
        ("We propose to study binding at scale.", None),
        # No sentence proposes: what it studies, analyses or gives names it (a comma between adjectives kept).
        (
            "Event sequences are chains of events. In this work, we study long-horizon forecasting of event "
            "sequences as a conditional generative modeling problem.",
            "Long-horizon forecasting of event sequences",
        ),
        (
            "PMD is well understood. We give a finite-time, finite-sample analysis of PMD in ergodic average-reward "
            "MDPs built around a single master recursion.",
            "Finite-time, finite-sample analysis of PMD",
        ),
        ("We propose a faster solver. We study it on graphs.", "Faster solver"),  # a proposal comes first
        ("Terminal escape codes are a hazard. We study them.", None),
        ("Critical decisions are rarely single-timescale.", None),
        # Found on the 8,647 ML abstracts read as untitled: "This paper studies ..." was labelled 'Paper studies the'.
        ("This paper studies the sample complexity of tuning priors.", "Sample complexity of tuning priors"),
        ("Our work examines fairness in canonical correlation analysis.", "Fairness in canonical correlation analysis"),
        ("We study the problem of learning from noisy labels.", "Learning from noisy labels"),
        ("We propose and theoretically analyze a decentralized model.", "Decentralized model"),
        ("We propose a novel and simple algorithm for sparse recovery.", "Simple algorithm for sparse recovery"),
        ("We give an initial attempt. Nothing else is said.", None),
        (
            "Agents imitate teachers. We frame this design choice as a budget-allocation problem and compare three "
            "constructions of supervised training data: short or long.",
            "Comparing three constructions of supervised training data",
        ),
        # The seeds' "Standard LLM training pipeline", named by the issue as opening words, not a title.
        (
            "The standard LLM training pipeline applies RL only after SFT. We question this status quo by training "
            "a LLM from scratch.",
            "Questioning the standard LLM training pipeline",
        ),
    ],
)
def test_a_paper_naming_nothing_is_described_by_what_it_proposes(text: str, title: str | None) -> None:
    assert described(text) == title


def test_a_descriptive_title_comes_before_the_opening_words() -> None:
    texts = {"p1": "Deep decarbonization needs planning. We propose a risk-aware grid controller for storms."}
    assert assign(texts, set()) == {"p1": "Risk-aware grid controller for storms"}


def test_labels_are_made_of_printable_text_whatever_the_abstract_holds() -> None:
    """Found by the issue-16 audit: an abstract's escape codes became the label '2J 0 pwned 31mTerminal'."""
    texts = {
        "a": "\x1b[2J\x1b]0;pwned\x07\x1b[31mTerminal escape codes in abstracts are a hazard. We study them.",
        "b": "We propose \x1b[31mRedNet\x1b[0m, a network for colour. It improves accuracy by 5%.",
    }
    labels = assign(texts, set())
    assert labels == {"a": "Terminal escape codes", "b": "RedNet"}
    assert assign({"c": "x"}, set(), titles={"c": "Bad\x1b]0;t\x07Name: a title"}) == {"c": "BadName"}


def test_a_status_quo_questioned_later_is_not_taken_for_the_opening_subject() -> None:
    """ "This status quo" points at the sentence before it: only the opening one when it is the second."""
    text = (
        "A desirable data selection algorithm picks informative samples. Current approaches iterate training. "
        "We challenge this status quo with a single pass."
    )
    assert described(text) is None
