"""Follow-up questions: rewriting against the previous answer (bot.followup), then real follow-ups on the seeds."""

from __future__ import annotations

import re

import pytest

from bot.errors import QueryError
from bot.query import parse
from bot.render.answer import followup_line
from bot.render.html import chat_markdown
from bot.render.text import answer_text
from bot.search import followup
from bot.settings import RetrievalSettings
from bot.types import Answer, Citation, Paper


def _paper(label: str) -> Paper:
    return Paper(f"id-{label}", f"{label} abstract.", f"{label} abstract.", label, "h", ())


PAPERS = [_paper(label) for label in ("Cal-SPI", "ASCPO", "CURE")]
PREVIOUS = Answer(
    "How can RL be kept safe in every state?",
    "x [1]. y [2]. z [3].",
    False,
    tuple(Citation(n, p) for n, p in enumerate(PAPERS, start=1)),
    (),
)
CAL, ASCPO, CURE = (p.paper_id for p in PAPERS)
SETTINGS = RetrievalSettings()


@pytest.mark.parametrize(
    ("question", "standalone", "papers", "kind"),
    [
        ("tell me more about [2]", "Tell me more about ASCPO", (ASCPO,), "paper"),
        ("what does [3] propose?", "What does CURE propose?", (CURE,), "paper"),
        ("what about the second one?", "What about ASCPO?", (ASCPO,), "paper"),
        ("and the last one?", "And CURE?", (CURE,), "paper"),
        ("What is paper 1 about?", "What is Cal-SPI about?", (CAL,), "paper"),
        ("compare [1] and [3]", "Compare Cal-SPI and CURE", (CAL, CURE), "compare"),
        (
            "compare [1] and [3] on data efficiency",
            "Compare Cal-SPI and CURE on data efficiency",
            (CAL, CURE),
            "compare",
        ),
        ("how does ASCPO differ from Cal-SPI?", "Compare ASCPO and Cal-SPI", (ASCPO, CAL), "compare"),
        ("how do they compare?", "Compare Cal-SPI, ASCPO and CURE", (CAL, ASCPO, CURE), "compare"),
        ("which of these use MuJoCo?", "Which papers use MuJoCo?", (CAL, ASCPO, CURE), "filter"),
        ("only the theoretical ones", "Which papers are theoretical?", (CAL, ASCPO, CURE), "filter"),
        (
            "what datasets do they use?",
            "How can RL be kept safe in every state? What datasets do these papers use?",
            (CAL, ASCPO, CURE),
            "continue",
        ),
        (
            "what about offline data?",
            "How can RL be kept safe in every state? What about offline data?",
            (),
            "continue",
        ),
        ("How does GRPO handle long rollouts?", "How does GRPO handle long rollouts?", (), "new"),
        ("Summarize CausalBind", "Summarize CausalBind", (), "new"),
    ],
)
def test_follow_ups_resolve_to_the_previous_answers_papers(question, standalone, papers, kind) -> None:
    resolved = followup.resolve(question, PREVIOUS, SETTINGS)
    assert (resolved.standalone, resolved.paper_ids, resolved.kind) == (standalone, papers, kind)
    assert resolved.question == question
    assert followup.resolve(parse(question), PREVIOUS, SETTINGS) == resolved  # a parsed question resolves alike


def test_a_parsed_question_is_tidied_like_its_text() -> None:
    untidy = "  which of\nthese   use MuJoCo? "
    assert followup.resolve(parse(untidy), PREVIOUS, SETTINGS) == followup.resolve(untidy, PREVIOUS, SETTINGS)
    assert followup.resolve(untidy, PREVIOUS, SETTINGS).question == "which of these use MuJoCo?"


def test_a_reference_past_the_last_citation_is_an_error_naming_the_ones_there_are() -> None:
    """Searching the corpus for '[7]' would answer something nobody asked; say which numbers exist."""
    have = ", ".join(f"[{c.n}]" for c in PREVIOUS.citations)
    with pytest.raises(QueryError, match=re.escape(f"cites {have}; there is no [7] in it, so use one of those")):
        followup.resolve("tell me more about [7]", PREVIOUS, SETTINGS)


def test_an_interval_in_brackets_is_mathematics_not_a_citation() -> None:
    for question in ("which papers normalise rewards to [0, 1]?", "bounds on [0,1] valued losses", "lr in [1, 10]"):
        assert followup.resolve(question, None, SETTINGS) == followup.Followup(question, question)
        assert followup.resolve(question, PREVIOUS, SETTINGS).paper_ids == ()


def test_citation_numbers_count_even_when_an_earlier_paper_is_gone() -> None:
    """History whose [2] paper was deleted since: [3] is still the third citation, and [2] says why it is missing."""
    gappy = Answer("q", "x", False, (Citation(1, PAPERS[0]), Citation(3, PAPERS[2])), ())
    assert followup.resolve("tell me more about [3]", gappy, SETTINGS).paper_ids == (CURE,)
    with pytest.raises(QueryError, match=re.escape("cites [1], [3] (the others' papers are no longer stored)")):
        followup.resolve("tell me more about [2]", gappy, SETTINGS)


def test_without_a_previous_answer_a_question_stands_alone_unless_it_cites_one() -> None:
    question = "what datasets do they use?"
    assert followup.resolve(question, None, SETTINGS) == followup.Followup(question, question)
    abstained = Answer("cake?", "nothing", True, (), ())
    for previous in (None, abstained):
        with pytest.raises(QueryError, match="no earlier answer with citations"):
            followup.resolve("tell me more about [2]", previous, SETTINGS)


def test_it_means_the_one_paper_of_a_single_paper_answer() -> None:
    single = Answer("What is CURE?", "x [1].", False, (Citation(1, PAPERS[2]),), ())
    resolved = followup.resolve("what are its limitations?", single, SETTINGS)
    assert resolved.standalone == "What is CURE? What are CURE's limitations?"
    assert resolved.paper_ids == (CURE,)


def test_compare_reaches_a_paper_the_previous_answer_did_not_cite() -> None:
    other = _paper("CausalBind")
    single = Answer("What is CURE?", "x [1].", False, (Citation(1, PAPERS[2]),), ())
    resolved = followup.resolve("compare it with CausalBind", single, SETTINGS, [*PAPERS, other])
    assert (resolved.standalone, resolved.paper_ids) == ("Compare CURE and CausalBind", (CURE, other.paper_id))
    resolved = followup.resolve("compare [2] with CausalBind", PREVIOUS, SETTINGS, [*PAPERS, other])
    assert (resolved.standalone, resolved.paper_ids) == ("Compare ASCPO and CausalBind", (ASCPO, other.paper_id))
    # without the corpus's papers only the earlier answer's papers can be named
    assert followup.resolve("compare [2] with CausalBind", PREVIOUS, SETTINGS).paper_ids == (ASCPO,)


def test_history_turns_become_the_previous_answer() -> None:
    stored = {p.paper_id: p for p in PAPERS}
    asked = {
        "question": "q",
        "standalone_question": "sq",
        "answer": "x [1]. y [2].",
        "abstained": False,
        "citations": [{"n": 1, "paper_id": ASCPO}, {"n": 2, "paper_id": "gone"}],
    }
    for turns in ([asked], [{"question": "q", "answer": asked}], [{"citations": []}, asked]):
        previous = followup.previous_answer(turns, stored)
        assert previous is not None
        assert [(c.n, c.paper.label) for c in previous.citations] == [(1, "ASCPO")]
        assert (previous.question, previous.standalone_question) == ("q", "sq")
    assert followup.previous_answer([], stored) is None
    refused = [
        ({"label": "x"}, 'needs a whole number "n" and a text "paper_id"'),
        ({"n": True}, 'needs a whole number "n" and a text "paper_id"'),
        ({"n": "one", "paper_id": ASCPO}, "a citation's \"n\" is 'one'; give its number"),
        ({"n": 0, "paper_id": ASCPO}, 'a citation\'s "n" is 0; give its number'),
        ({"n": True, "paper_id": ASCPO}, 'a citation\'s "n" is True; give its number'),
        ({"n": 1, "paper_id": ["x"]}, "a citation's \"paper_id\" is \\['x'\\]; give the id"),
    ]
    for citation, message in refused:
        with pytest.raises(QueryError, match=message):
            followup.previous_answer([{"citations": [citation]}], stored)


def test_the_chat_bubble_says_what_a_follow_up_searched() -> None:
    answer = Answer(
        "compare [1] and [3]",
        "A [1]. B [2].",
        False,
        (Citation(1, PAPERS[0]), Citation(2, PAPERS[2])),
        (),
        standalone_question="Compare Cal-SPI and CURE",
        restricted_to=(CAL, CURE),
    )
    bubble = chat_markdown(answer)
    assert bubble.startswith("*Searched:* Compare Cal-SPI and CURE · *Only among:* Cal-SPI, CURE\n\nA [1]. B [2].")
    assert answer_text(answer).startswith("Searched: Compare Cal-SPI and CURE · Only among: Cal-SPI, CURE\n\n")
    plain = Answer("q", "A [1].", False, (Citation(1, PAPERS[0]),), (), standalone_question="q")
    assert followup_line(plain) is None


# --- Real follow-ups on the seeds ---

SAFE_RL = "How can reinforcement learning keep an agent safe in every state it visits?"


@pytest.fixture(scope="module")
def first(seeded_bot) -> Answer:
    answer = seeded_bot.ask(SAFE_RL)
    assert len(answer.citations) >= 3
    return answer


@pytest.mark.slow
def test_tell_me_more_about_n_summarises_that_paper(seeded_bot, first) -> None:
    second = first.citations[1].paper
    answer = seeded_bot.ask("tell me more about [2]", previous=first)
    assert answer.question == "tell me more about [2]"
    assert answer.standalone_question == f"Tell me more about {second.label}"
    assert answer.restricted_to == (second.paper_id,)
    assert [c.paper for c in answer.citations] == [second]
    lines = answer.markdown.splitlines()
    assert lines[0] == f"**{second.label}**"
    assert lines[1].startswith("- Problem: ") and any(line.startswith("- Method: ") for line in lines)
    assert all(s.supported for s in answer.sentences)


@pytest.mark.slow
def test_compare_cites_both_papers_point_by_point(seeded_bot, first) -> None:
    one, three = first.citations[0].paper, first.citations[2].paper
    answer = seeded_bot.ask("compare [1] and [3]", previous=first)
    assert [c.paper for c in answer.citations] == [one, three]
    blocks = answer.markdown.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [f"**{one.label}**", f"**{three.label}**"]
    assert all("[1]" in line for line in blocks[0].splitlines()[1:])
    assert all("[2]" in line for line in blocks[1].splitlines()[1:])
    assert {s.citations for s in answer.sentences} == {(1,), (2,)}


@pytest.mark.slow
def test_which_of_these_keeps_only_earlier_papers_naming_the_term(seeded_bot) -> None:
    first = seeded_bot.ask("Which papers study safe or offline reinforcement learning?")
    earlier = {c.paper.paper_id for c in first.citations}
    naming = {c.paper.paper_id for c in first.citations if "mujoco" in c.paper.text.lower()}
    assert naming and naming != earlier  # the filter has something to keep and something to drop
    answer = seeded_bot.ask("which of these use MuJoCo?", previous=first)
    assert answer.standalone_question == "Which papers use MuJoCo?"
    assert set(answer.restricted_to) == earlier
    assert {c.paper.paper_id for c in answer.citations} == naming
    # What was searched names every earlier paper by its label, not by its id.
    line = followup_line(answer) or ""
    assert all(c.paper.label in line for c in first.citations)
    assert not re.search(r"\bp[0-9a-f]{12}\b", line)
    none = seeded_bot.ask("which of these use protein docking?", previous=first)
    assert none.abstained


@pytest.mark.slow
def test_a_pronoun_question_keeps_the_topic_and_the_papers(seeded_bot, first) -> None:
    answer = seeded_bot.ask("what benchmarks do they evaluate on?", previous=first)
    assert answer.standalone_question == f"{SAFE_RL} What benchmarks do these papers evaluate on?"
    assert not answer.abstained
    assert {c.paper.paper_id for c in answer.citations} <= {c.paper.paper_id for c in first.citations}


@pytest.mark.slow
def test_summarize_by_label_or_by_content_gives_one_structured_abstract(seeded_bot) -> None:
    by_label = seeded_bot.ask("Summarize CausalBind")
    by_content = seeded_bot.ask("summarize the work on protein-ligand screening with sparse binding contacts")
    for answer in (by_label, by_content):
        assert [c.paper.label for c in answer.citations] == ["CausalBind"]
        lines = answer.markdown.splitlines()
        assert lines[0] == "**CausalBind**"
        roles = [line.split(":")[0] for line in lines[1:]]
        assert roles[:1] == ["- Problem"] and "- Method" in roles and "- Results" in roles
        assert all(line.rstrip().endswith("[1].") for line in lines[1:])


def test_how_short_a_continuing_question_is_comes_from_the_settings() -> None:
    question = "what about offline data?"  # 2 content words
    assert followup.resolve(question, PREVIOUS, SETTINGS).kind == "continue"
    assert followup.resolve(question, PREVIOUS, SETTINGS.model_copy(update={"continue_words": 1})).kind == "new"


@pytest.mark.parametrize(
    "question",
    [
        "Is there a way to get training data for difficult robot skills by recording the simple undo action and "
        "playing it backwards?",
        "How does reward shaping help when it is sparse?",
        "What is off-policy evaluation used for?",
        # "their" is the papers the question asks for
        "Which papers run their experiments on MuJoCo (single- or multi-agent versions)?",
        "Which papers use deep Q-learning as part of their method?",
    ],
)
def test_a_self_contained_question_is_a_new_search_whatever_pronouns_it_uses(question) -> None:
    resolved = followup.resolve(question, PREVIOUS, SETTINGS)
    assert resolved.kind == "new" and resolved.paper_ids == ()


@pytest.mark.parametrize(
    "question", ["What methods do they propose?", "What are their main results?", "Which of them use MuJoCo?"]
)
def test_a_pronoun_before_the_question_names_its_own_papers_still_points_back(question) -> None:
    assert followup.resolve(question, PREVIOUS, SETTINGS).paper_ids


def test_an_ordinal_past_the_last_citation_says_there_is_no_such_paper() -> None:
    single = Answer("What is CURE?", "x [1].", False, (Citation(1, PAPERS[2]),), ())
    with pytest.raises(QueryError, match=re.escape("cites 1 paper ([1] CURE); there is no second one")):
        followup.resolve("What about the second one?", single, SETTINGS)
    assert followup.resolve("What about the first one?", single, SETTINGS).paper_ids == (CURE,)
    # found by a new user: "the tenth one" and "paper 9" were searched as new questions after fewer papers
    with pytest.raises(
        QueryError, match=re.escape("cites 3 papers ([1] Cal-SPI, [2] ASCPO, [3] CURE); there is no tenth")
    ):
        followup.resolve("what about the tenth one?", PREVIOUS, SETTINGS)
    with pytest.raises(QueryError, match=re.escape("there is no paper 9 in it, so ask about one of those")):
        followup.resolve("tell me about paper 9", PREVIOUS, SETTINGS)
    assert followup.resolve("tell me about paper 3", PREVIOUS, SETTINGS).paper_ids == (CURE,)


def test_asking_for_another_paper_sets_the_earlier_ones_aside() -> None:
    single = Answer("What is CURE?", "x [1].", False, (Citation(1, PAPERS[2]),), ())
    asked = (
        "Is there another paper on safe data deletion in offline robot learning, and how does it differ from this one?"
    )
    resolved = followup.resolve(asked, single, SETTINGS)
    assert (resolved.kind, resolved.excluded, resolved.paper_ids) == ("another", (CURE,), ())
    assert resolved.standalone == asked.replace("this one", "CURE")  # searched as asked, "this one" named
    # with few words of its own, the earlier topic is kept
    short = followup.resolve("Are there any other papers on this?", PREVIOUS, SETTINGS)
    assert short.kind == "another" and short.excluded == (CAL, ASCPO, CURE)
    assert short.standalone == "How can RL be kept safe in every state? Are there any other papers on this?"
    # "other methods" inside a question of its own is not a request for more papers
    assert (
        followup.resolve("How does CURE compare with other methods for unlearning?", single, SETTINGS).kind != "another"
    )


def test_a_question_of_brackets_alone_is_an_error_not_a_search() -> None:
    """ "[0]", "[-1]" and "[1-3]" are no citation this reads and hold no words: before this they were searched
    (matching a "0" in an abstract) and answered with unrelated papers."""
    previous = Answer("q", "x", False, (Citation(1, PAPERS[0]), Citation(2, PAPERS[1])), ())
    for question in ("[0]", "[-1]", "[1-3]", "[0, 1]?"):
        for earlier in (None, previous):
            with pytest.raises(QueryError, match=re.escape("holds no words to search for")):
                followup.resolve(question, earlier, SETTINGS)
    assert followup.resolve("[2]", previous, SETTINGS).paper_ids == (PAPERS[1].paper_id,)
    assert followup.resolve("rewards in [0, 1]", None, SETTINGS).kind == "new"
