"""The citation checker (bot.check) on hand-written answers and on the composer's own answers, with the real MiniLM."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from bot.answer.check import Checker, check_answer, check_text, makes_no_claim, numbers
from bot.render.answer import UNSUPPORTED_MARK, UNSUPPORTED_NOTE, mark_unsupported
from bot.render.html import chat_markdown
from bot.render.json import answer_json
from bot.text.citations import ABSTAIN_MESSAGE, NO_CITATIONS_MESSAGE, numbers_in
from bot.types import Answer, AnswerSentence, Citation, Paper

DATA = Path(__file__).resolve().parents[2] / "data"


def _paper(bot, snippet: str) -> Paper:
    (found,) = [p for p in bot.papers().values() if snippet in p.text]
    return found


def test_numbers_are_read_as_stated_not_inside_names() -> None:
    assert numbers("up to 19% gains, 5x-6x faster on Qwen3-8B in 2025 [3]") == {"19", "5", "6", "2025"}
    assert numbers("three MuJoCo domains and one-step error") == {"3"}
    assert numbers("improves by 10.8% and 9.4%.") == {"10.8", "9.4"}


def test_framing_sentences_make_no_claim() -> None:
    assert makes_no_claim(ABSTAIN_MESSAGE)
    assert makes_no_claim(NO_CITATIONS_MESSAGE)
    assert makes_no_claim("3 papers in the corpus match:")
    assert not makes_no_claim("GRPO is unstable on long rollouts.")


@pytest.mark.slow
def test_paraphrase_fabrication_and_wrong_abstract_are_told_apart(seeded_bot) -> None:
    cal_spi = _paper(seeded_bot, "Calibrated Safe Policy Improvement (Cal-SPI)")
    ascpo = _paper(seeded_bot, "Absolute State-wise Constrained Policy Optimization (ASCPO)")
    paraphrase = "Cal-SPI brings safe policy improvement to continuous control by calibrating trust in a learned model."
    fabricated = "Cal-SPI was evaluated on Atari games, where it doubled the score of DQN."
    parts = [AnswerSentence(paraphrase, (1,)), AnswerSentence(fabricated, (1,)), AnswerSentence(paraphrase, (2,))]
    judged = Checker(seeded_bot.embed, seeded_bot.settings.check).sentences(
        parts, [Citation(1, cal_spi), Citation(2, ascpo)]
    )
    assert [s.supported for s in judged] == [True, False, False]
    right, made_up, wrong = (s.support for s in judged)
    assert right is not None and made_up is not None and wrong is not None
    assert right > made_up + 0.15 and right > wrong + 0.15
    assert judged[0].reason == ""
    assert judged[2].reason.startswith("[2] does not support it (support ")


@pytest.mark.slow
def test_hand_written_cases_are_judged_as_labelled(seeded_bot) -> None:
    """tests/data/support_cases.jsonl: every paraphrase supported, every fabrication caught, and each
    paraphrase cited to the nearest other abstract caught. Contradictions that reuse the abstract's own
    words are a known blind spot of a similarity check (docs/citations.md) and are not asserted."""
    cases = [json.loads(line) for line in (DATA / "support_cases.jsonl").read_text().splitlines()]
    checker = Checker(seeded_bot.embed, seeded_bot.settings.check)
    wrong_ok, by_kind = [], {}
    for case in cases:
        paper = _paper(seeded_bot, case["paper"])
        (judged,) = checker.sentences([AnswerSentence(case["sentence"], (1,))], [Citation(1, paper)])
        by_kind.setdefault(case["kind"], []).append((case["id"], judged.supported))
        if case["kind"] == "paraphrase":
            near = next(h.paper for h in seeded_bot.search(case["sentence"], k=3).hits if h.paper != paper)
            (other,) = checker.sentences([AnswerSentence(case["sentence"], (1,))], [Citation(1, near)])
            wrong_ok.append((case["id"], other.supported))
    assert [i for i, ok in by_kind["paraphrase"] if not ok] == []
    assert [i for i, ok in by_kind["fabricated"] if ok] == []
    assert [i for i, ok in wrong_ok if ok] == []


@pytest.mark.slow
def test_bad_markers_are_removed_and_uncited_findings_flagged(seeded_bot) -> None:
    cal_spi = _paper(seeded_bot, "Calibrated Safe Policy Improvement (Cal-SPI)")
    causal = _paper(seeded_bot, "a V-structure causal model under Heckman-style selection")
    markdown = (
        "Cal-SPI replaces count-based support with calibrated model trust. [2] "
        "CausalBind outperforms strong baselines on DUD-E and LIT-PCBA [4, 9]. "
        "It also cures cancer [7].\n\nGRPO training is unstable on long rollouts."
    )
    # [4] is listed but was not retrieved; [7] and [9] name no listed paper at all.
    listed = [Citation(2, cal_spi), Citation(4, causal)]
    checked = check_text(markdown, listed, seeded_bot.embed, seeded_bot.settings.check, {cal_spi.paper_id})
    assert checked.removed == (4, 7, 9)
    assert [c.paper for c in checked.citations] == [cal_spi]  # renumbered from 2 to 1
    assert checked.markdown.startswith("Cal-SPI replaces count-based support with calibrated model trust [1]. ")
    assert "[4" not in checked.markdown and "[7]" not in checked.markdown and "9]" not in checked.markdown
    assert "It also cures cancer." in checked.markdown
    first, causal_line, cancer, grpo = checked.sentences
    assert (first.citations, first.supported) == ((1,), True)
    assert causal_line.citations == () and causal_line.supported is False
    assert causal_line.reason == "states a finding but cites [4, 9], which names no retrieved paper"
    assert cancer.supported is False and cancer.support == 0.0
    assert (grpo.supported, grpo.reason) == (False, "states a finding but cites no abstract")
    assert set(numbers_in(checked.markdown)) == {c.n for c in checked.citations}


@pytest.mark.slow
def test_a_number_missing_from_the_cited_abstract_fails_the_sentence(seeded_bot) -> None:
    star = _paper(seeded_bot, "constructing low-staleness and high-quality training data")
    checker = Checker(seeded_bot.embed, seeded_bot.settings.check)
    true, false = checker.sentences(
        [
            AnswerSentence("STAR surpasses the on-policy baseline using only around 13% of the rollout data.", (1,)),
            AnswerSentence("STAR surpasses the on-policy baseline using only around 31% of the rollout data.", (1,)),
        ],
        [Citation(1, star)],
    )
    assert true.supported is True
    assert (false.supported, false.reason) == (False, "states numbers its citation does not: 31 (not in [1])")


@pytest.mark.slow
def test_composer_answers_to_the_held_out_questions_are_supported(seeded_bot) -> None:
    held = [json.loads(line)["question"] for line in (DATA / "heldout.jsonl").read_text().splitlines()]
    answers = seeded_bot.ask_many(held)
    judged = [s for a in answers if not a.abstained for s in a.sentences]
    unsupported = [(s.text, s.reason) for s in judged if not s.supported]
    assert len(judged) > 80  # 100 sentences measured: answers are a paper's contribution and what was asked
    assert len(unsupported) <= 0.02 * len(judged), unsupported
    assert all(s.support is not None and 0.0 <= s.support <= 1.0 for s in judged)


@pytest.mark.slow
def test_an_abstention_is_checked_too(seeded_bot) -> None:
    answer = seeded_bot.ask("a recipe for chocolate cake")
    assert answer.abstained
    first, overview = answer.sentences
    assert (first.text, first.supported, first.support) == (ABSTAIN_MESSAGE, True, None)
    # what the corpus is about cites nothing and claims nothing about any one paper
    assert (
        overview.supported is True and overview.citations == () and overview.reason == "makes no claim about the papers"
    )


@pytest.mark.slow
def test_check_answer_keeps_a_good_extractive_answer_as_it_is(seeded_bot) -> None:
    answer = seeded_bot.ask("How does Cal-SPI certify model error?")
    again = check_answer(answer, seeded_bot.embed, seeded_bot.settings.check)
    assert again == answer  # checking twice changes nothing
    assert all(s.supported for s in answer.sentences)


def test_chat_bubble_marks_unsupported_sentences_and_says_what_the_mark_means() -> None:
    paper = Paper("p1", "Cal-SPI is safe.", "Cal-SPI is safe.", "Cal-SPI", "h", ())
    good = AnswerSentence("Cal-SPI is safe.", (1,), supported=True, support=0.9)
    bad = AnswerSentence("Cal-SPI cures cancer.", (1,), supported=False, support=0.2, reason="[1] does not support it")
    answer = Answer("q", "Cal-SPI is safe [1]. Cal-SPI cures cancer [1].", False, (Citation(1, paper),), (good, bad))
    bubble = chat_markdown(answer)
    assert bubble.startswith(f"Cal-SPI is safe [1]. Cal-SPI cures cancer [1]. {UNSUPPORTED_MARK}")
    assert bubble.count(UNSUPPORTED_MARK) == 1
    assert UNSUPPORTED_NOTE in bubble
    assert bubble.endswith("[1] **Cal-SPI**")
    data = answer_json(answer)
    assert [(s["supported"], s["support"]) for s in data["sentences"]] == [(True, 0.9), (False, 0.2)]
    assert data["sentences"][1]["reason"] == "[1] does not support it"
    assert (data["generator"], data["standalone_question"], data["restricted_to"]) == ("extractive", "q", [])


@pytest.mark.slow
def test_inline_markers_split_a_sentence_only_when_each_clause_is_cited(seeded_bot) -> None:
    cal_spi = _paper(seeded_bot, "Calibrated Safe Policy Improvement (Cal-SPI)")
    ascpo = _paper(seeded_bot, "Absolute State-wise Constrained Policy Optimization (ASCPO)")
    listing, made_up = Checker(seeded_bot.embed, seeded_bot.settings.check).sentences(
        [
            AnswerSentence(
                "Cal-SPI improves a baseline policy offline with calibrated model trust [1]; "
                "ASCPO enforces state-wise safety constraints in reinforcement learning [2].",
                (1, 2),
            ),
            AnswerSentence("Cal-SPI [1] and ASCPO [2] both detect tumours in medical scans.", (1, 2)),
        ],
        [Citation(1, cal_spi), Citation(2, ascpo)],
    )
    assert listing.supported is True
    assert made_up.supported is False and made_up.reason.startswith("[")


def test_each_unsupported_mark_follows_its_own_sentence() -> None:
    """A rejected sentence whose words begin an earlier accepted one is marked where it stands,
    and a sentence repeated with different verdicts gets one mark per rejected copy."""
    paper = Paper("p1", "Scaling helps.", "Scaling helps.", "S", "h", ())
    good = AnswerSentence("Scaling helps on math benchmarks.", (1,), supported=True, support=0.9)
    bad = AnswerSentence("Scaling helps.", (2,), supported=False, support=0.2)
    answer = Answer(
        "q", "Scaling helps on math benchmarks [1]. Scaling helps [2].", False, (Citation(1, paper),), (good, bad)
    )
    assert mark_unsupported(answer) == f"Scaling helps on math benchmarks [1]. Scaling helps [2]. {UNSUPPORTED_MARK}"
    twice = Answer(
        "q",
        "X holds [1]. X holds [1].",
        False,
        (Citation(1, paper),),
        (
            AnswerSentence("X holds.", (1,), supported=False, support=0.1),
            AnswerSentence("X holds.", (1,), supported=False, support=0.1),
        ),
    )
    marked = mark_unsupported(twice)
    assert marked == f"X holds [1]. {UNSUPPORTED_MARK} X holds [1]. {UNSUPPORTED_MARK}"


def test_the_chat_bubble_shows_markup_from_abstracts_as_text() -> None:
    """An abstract's image or HTML must not be fetched or rendered by the reader's browser."""
    text = "See ![pixel](http://127.0.0.1:9/track.png) and <img src=x> here."
    paper = Paper("p1", text, text, "<b>Bold</b>", "h", ())
    answer = Answer("q", f"{text} [1].", False, (Citation(1, paper),), ())
    bubble = chat_markdown(answer)
    assert not re.search(r"!\[|(?<!\\)\]\(", bubble)  # no image and no link syntax left unescaped
    assert "<img" not in bubble and "<b>" not in bubble
    assert "http://127.0.0.1:9/track.png" in bubble  # still there to read


def test_a_sentence_taken_from_the_abstract_it_cites_is_embedded_as_that_sentence(seeded_bot) -> None:
    """The extractive answer's sentences are its abstracts' own, reworded: checked by the vector every
    answer already has for the source sentence, not by embedding the rewording again. Cited to another
    paper, the same sentence is checked as written and fails."""
    cure, ascpo, source, reworded, embedded, checker = _cure_reworded(seeded_bot)
    own, other = checker.sentences(
        [AnswerSentence(reworded, (1,), source), AnswerSentence(reworded, (2,), source)],
        [Citation(1, cure), Citation(2, ascpo)],
    )
    assert own.supported and own.support is not None and own.support > 0.9
    assert not other.supported
    assert embedded.count(reworded) == 1  # once, for the check against ASCPO
    written = Checker(seeded_bot.embed, seeded_bot.settings.check).sentences(
        [AnswerSentence(reworded, (1,))], [Citation(1, cure)]
    )
    assert written[0].supported and own.support >= (written[0].support or 0)


def test_claims_that_are_their_papers_own_sentences_embed_nothing_and_score_as_if_embedded(seeded_bot) -> None:
    """A sentence's best match in its own abstract is itself (similarity 1): checking an extractive answer
    embeds none of its papers' titles and sentences, and gives the support embedding them gives."""
    cure, ascpo, source, reworded, embedded, checker = _cure_reworded(seeded_bot)
    (own,) = checker.sentences([AnswerSentence(reworded, (1,), source)], [Citation(1, cure)])
    assert embedded == []
    vectors = seeded_bot.embed([source, *[s for s in re.split(r"(?<=\.)\s+", cure.display) if s]])
    assert float(np.max(vectors[1:] @ vectors[0])) == pytest.approx(1.0, abs=1e-6)
    assert own.supported and own.support is not None and own.support >= 0.5
    # Cited to another paper too: only that paper's title and sentences, and the claim, are embedded.
    checker.sentences(
        [AnswerSentence(reworded, (1,), source), AnswerSentence(reworded, (2,), source)],
        [Citation(1, cure), Citation(2, ascpo)],
    )
    assert source not in embedded and reworded in embedded and ascpo.display.split(". ")[0] in " ".join(embedded)


def _cure_reworded(seeded_bot):
    """CURE and ASCPO, CURE's contribution sentence and its rewording as the composer writes it, and a
    Checker recording every text it embeds (into the list returned)."""
    cure = _paper(seeded_bot, "Conservative Unlearning with soft-gating Regularization (CURE)")
    ascpo = _paper(seeded_bot, "Absolute State-wise Constrained Policy Optimization (ASCPO)")
    (source,) = [s for s in re.split(r"(?<=\.)\s+", cure.display) if s.startswith("We propose Conservative")]
    reworded = "The authors propose" + source[len("We propose") :]
    embedded: list[str] = []

    def embed(texts: list[str]):
        embedded.extend(texts)
        return seeded_bot.embed(texts)

    return cure, ascpo, source, reworded, embedded, Checker(embed, seeded_bot.settings.check)
