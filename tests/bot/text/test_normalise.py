"""ingest.normalise: the content key behind paper ids, and display rendering."""

from __future__ import annotations

import pytest

from bot.text.normalise import content_hash, display, normalised, paper_id


def test_normalised_folds_case_whitespace_and_compatibility_forms() -> None:
    assert normalised("A  Study\nof\tX") == "a study of x"
    assert normalised("ﬁne-tuning") == "fine-tuning"  # NFKC turns the ligature into letters


def test_paper_id_is_stable_under_layout_and_differs_with_content() -> None:
    assert paper_id("A study of X.") == paper_id("  a  STUDY\nof x.  ")
    assert paper_id("A study of X.") != paper_id("A study of Y.")
    assert paper_id("x").startswith("p") and len(paper_id("x")) == 13


def test_content_hash_covers_the_title() -> None:
    assert content_hash("text", "Title") != content_hash("text", None)
    assert content_hash("text", None) == content_hash("text", "")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("**STAR** beats $\\chi$-Bench by \\textbf{5}%", "STAR beats χ-Bench by 5%"),
        ("We introduce \\textbf{PRISM}, a pipeline.", "We introduce PRISM, a pipeline."),
        ("produce **sparse subtle anomalies**.", "produce sparse subtle anomalies."),
        ("an *italic* word and 3*4 grids", "an italic word and 3*4 grids"),
        ("50\\% faster and \\emph{much} better", "50% faster and much better"),
        ("$Q^\\pi$ and $\\alpha$-risk", "Q^π and α-risk"),
        ("SFT$\\to$RL", "SFT→RL"),
        ("one\n  paragraph,\n two lines", "one paragraph, two lines"),
    ],
)
def test_display_renders_markdown_and_latex(raw: str, shown: str) -> None:
    assert display(raw) == shown


def test_display_leaves_money_alone() -> None:
    # Regression: "$5 to $" was read as math, dropping both dollars and a space.
    assert display("We cut cost from $5 to $10 per run.") == "We cut cost from $5 to $10 per run."


def test_display_never_fails_on_broken_latex() -> None:
    assert display("an unclosed \\textbf{brace and $\\frac{1}{$ here") != ""


def test_a_paragraph_that_renders_to_nothing_is_kept_as_written() -> None:
    """Found by the fuzzer: an unknown macro alone rendered to '', leaving a paper with no chunks."""
    assert display("\\qubegin") == "\\qubegin"
    assert display("$\\unknownmacro$") == "$\\unknownmacro$"
    assert display("**STAR** beats $\\chi$-Bench") == "STAR beats χ-Bench"  # rendering still applies


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("outputs from Gemini~3 Flash", "outputs from Gemini 3 Flash"),  # from the seeds
        ("as Fig.~2 shows", "as Fig. 2 shows"),
        ("language models~(PLMs)", "language models (PLMs)"),
        ("rate from~$29.6\\%$", "rate from 29.6%"),
        ("regret O~(dT) and Ω~(d) calls", "regret O~(dT) and Ω~(d) calls"),  # soft-O, not a tie
        ("a 4~16x speedup", "a 4~16x speedup"),  # a range
        ("noise x_t~N(0, I) and z~Bern(p)", "noise x_t~N(0, I) and z~Bern(p)"),  # distributed as
        ("at http://x.org/~bob (~60 users)", "at http://x.org/~bob (~60 users)"),
    ],
)
def test_display_renders_a_latex_tie_between_words_as_a_space(raw: str, shown: str) -> None:
    assert display(raw) == shown


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (r"a signal from a \texttt{verify\_answer} tool", "a signal from a verify_answer tool"),
        (r"we propose \textsf{WDRO}, a method", "we propose WDRO, a method"),
        (r"$\mathsf{ABC}$-Net beats $\mathtt{x}$", "ABC-Net beats x"),
    ],
)
def test_display_keeps_typewriter_and_sans_serif_names(raw: str, shown: str) -> None:
    """pylatexenc drops \texttt and \textsf text: a method named that way must stay searchable."""
    assert display(raw) == shown


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a dimension-free bound---that is, the error", "a dimension-free bound\u2014that is, the error"),  # Q-MMR
        ("an encode--evolve--decode interface", "an encode\u2013evolve\u2013decode interface"),  # Seahorse
        ("4--16 layers and pages (a)--(b)", "4\u201316 layers and pages (a)\u2013(b)"),
        ("spaced -- as here --- and here", "spaced \u2013 as here \u2014 and here"),
        ("run it with --help or <--> or a----b", "run it with --help or <--> or a----b"),  # not dashes
    ],
)
def test_display_renders_latex_dashes(raw: str, shown: str) -> None:
    assert display(raw) == shown
