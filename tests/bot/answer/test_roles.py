"""Sentence roles (bot.answer.roles) and the choice of sentences for an intent (bot.answer.picks)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.answer import picks, roles
from bot.query import parse
from bot.settings import AnswerSettings
from bot.types import Hit, Paper

ABSTRACT = [
    "Virtual screening is hard because binding depends on sparse contacts.",
    "This problem is further amplified when targets are new.",
    "To bridge this gap, we propose CausalBind, a causal model of binding.",
    "It then learns sparse interaction maps between concepts.",
    "Experiments on DUD-E show gains of 4.2% over strong baselines.",
]
HIT = Hit(Paper("p1", " ".join(ABSTRACT), " ".join(ABSTRACT), "CausalBind", "h", ()), 1.0, 1.0, 1.0)


def test_the_contribution_is_the_sentence_that_proposes_and_earlier_ones_state_the_problem() -> None:
    read = roles.read(ABSTRACT, "CausalBind")
    assert [s.role for s in read] == ["problem", "problem", "contribution", "method", "finding"]
    assert read[2].text == "We propose CausalBind, a causal model of binding."  # linking opener dropped
    assert read[2].source == ABSTRACT[2]
    assert [s.leans_back for s in read] == [False, True, False, True, False]
    assert read[4].numbers == 1  # "4.2%"


def test_a_sentence_naming_the_paper_wins_among_several_that_propose() -> None:
    texts = ["We propose to study binding at scale.", "We introduce CausalBind for it.", "It wins."]
    # before the contribution, a "we" sentence is already part of the method, not the problem
    assert [s.role for s in roles.read(texts, "CausalBind")][:2] == ["method", "contribution"]
    assert [s.role for s in roles.read(texts, None)][:2] == ["contribution", "method"]


@pytest.mark.parametrize(
    ("sentence", "alone"),
    [
        (
            "To accomplish this goal, we propose ASCPO, a policy search method.",
            "We propose ASCPO, a policy search method.",
        ),
        ("However, to address this, we design a sampler for long rollouts.", "We design a sampler for long rollouts."),
        ("Motivated by this observation, we build an agent for browsing.", "We build an agent for browsing."),
        ("However, short.", "However, short."),  # what would be left is too short to stand alone
        (  # the comma opens an example of "the challenges", not the claim
            "To mitigate the longstanding challenges, e.g., reward sparsity, we propose X.",
            "To mitigate the longstanding challenges, e.g., reward sparsity, we propose X.",
        ),
        ("Reinforcement learning is widely used.", "Reinforcement learning is widely used."),
        # h03, h12 (round 49): what an earlier sentence made, pointed at by the opener
        (
            "Using this dataset, they further propose CURE, a coupled RL method.",
            "They further propose CURE, a coupled RL method.",
        ),
        (
            "To equip the model with these capabilities, they construct a video anomaly dataset.",
            "They construct a video anomaly dataset.",
        ),
        (
            "Using a small dataset, we train a model that works well.",
            "Using a small dataset, we train a model that works well.",
        ),
    ],
)
def test_linking_openers_are_dropped_only_when_the_rest_stands_alone(sentence: str, alone: str) -> None:
    assert roles.stand_alone(sentence) == alone


def test_leaning_sentences_point_back_but_self_references_do_not() -> None:
    assert roles.leans_back("These findings underscore the need for care.")
    assert roles.leans_back("It then submits the plan.")
    assert not roles.leans_back("This paper proposes X.")
    assert not roles.leans_back("Thermal noise is a problem.")  # "This" only as a whole word
    # The paper, a verb, then a pointing word: what it points at is in the sentence before (round 34).
    assert roles.leans_back("This work formalizes these failure modes, derives lagged-risk decompositions.")
    assert roles.leans_back("We then study such settings.")
    assert roles.leans_back("We complement these convergence results with sample complexities.")
    assert not roles.leans_back("In this work, we propose X for these tasks.")


@pytest.mark.slow
def test_an_answer_names_the_contribution_and_keeps_the_abstracts_order(seeded_bot) -> None:
    hit = seeded_bot.search("What is CausalBind?", k=1).hits[0]
    settings = seeded_bot.settings.answer
    query = parse("What results does CausalBind report?")
    chosen = picks.choose(picks.scored(seeded_bot.embed, query, hit, settings), query.intent, 3, settings)
    assert [p.sentence.role for p in chosen].count("contribution") == 1
    assert "CausalBind" in " ".join(p.sentence.text for p in chosen)
    positions = [p.sentence.position for p in chosen]
    assert positions == sorted(positions)
    for pick in chosen:  # a leaning sentence only comes with the one it leans on
        assert not pick.sentence.leans_back or pick.sentence.position - 1 in positions
    why = parse("Why is virtual screening with sparse contacts hard?")
    reasons = picks.choose(picks.scored(seeded_bot.embed, why, hit, settings), why.intent, 3, settings)
    assert any(p.sentence.role == "problem" for p in reasons)  # the problem statement only when asked why
    assert not any(p.sentence.role == "problem" for p in chosen)


def test_a_sentence_giving_a_reason_is_marked_and_answers_why_first() -> None:
    texts = [
        "Off-policy training reuses old trajectories through replay buffers.",
        "Off-policy training often falls behind on-policy training on reasoning tasks.",
        "The gap stems from stale data in the replay buffer.",
        "We propose STAR, a replay framework.",
    ]
    read = roles.read(texts, "STAR")
    assert [s.explains for s in read] == [False, False, True, False]
    settings = AnswerSettings()
    # the restatement of the question scores higher by itself; the reason wins for "why" only
    scores = [0.7, 0.8, 0.65, 0.3]
    scored = [picks.Pick(HIT, s, score) for s, score in zip(read, scores, strict=True)]
    why = picks.choose(scored, "why", 2, settings)
    assert [p.sentence.position for p in why] == [2, 3]
    what = picks.choose(scored, "what", 2, settings)
    assert 2 not in [p.sentence.position for p in what]
    assert picks.choose(scored, "why", 2, settings.model_copy(update={"cause_bonus": 0.0}))[0].sentence.position == 1


def test_each_thing_a_question_asks_gets_its_best_sentence() -> None:
    read = roles.read(ABSTRACT, "CausalBind")
    settings = AnswerSettings()
    whole = [picks.Pick(HIT, s, score) for s, score in zip(read, [0.1, 0.1, 0.5, 0.2, 0.6], strict=True)]
    chosen = picks.choose(whole, "what", 2, settings)
    assert [p.sentence.position for p in chosen] == [2, 4]
    # "... and how does it learn?" is answered best by the method sentence, which leans on the contribution
    how = [picks.Pick(HIT, s, score) for s, score in zip(read, [0.1, 0.1, 0.2, 0.9, 0.1], strict=True)]
    both = picks.each_part(chosen, [("what", whole), ("how", how)], settings)
    assert [p.sentence.position for p in both] == [2, 3, 4]
    assert picks.each_part(chosen, [("what", whole)], settings) == chosen


MECHANISM = [
    "We propose CaC, a coarse-to-fine anomaly reward model.",
    "During inference, it first scans the whole video for anomalous windows, then grounds them in space.",
    "We construct a large dataset of generated videos with anomaly boxes.",
    "Experiments show CaC finds subtle anomalies with 25.7% higher accuracy.",
]


def _scored(read: list[roles.Sentence], scores: list[float]) -> list[picks.Pick]:
    """The sentences as picks of one paper with these scores against a question."""
    return [picks.Pick(HIT, s, v) for s, v in zip(read, scores, strict=True)]


def _mechanism_picks() -> list[picks.Pick]:
    read = roles.read(MECHANISM, "CaC")
    assert [s.role for s in read] == ["contribution", "method", "method", "finding"]
    scores = [0.25, 0.47, 0.47, 0.64]  # the finding is closest to "how does CaC localize ... at inference time?"
    matched = [{"anomali"}, {"anomali", "infer"}, {"anomali"}, {"anomali", "subtl"}]
    return [picks.Pick(HIT, s, v, frozenset(m)) for s, v, m in zip(read, scores, matched, strict=True)]


def test_how_one_paper_works_adds_the_method_sentence_that_says_more_of_the_question() -> None:
    settings = AnswerSettings()
    scored = _mechanism_picks()
    # asked of one named paper: the inference steps join (0.52 >= 0.7 of 0.69, and "inference" is new);
    # the dataset sentence says nothing of the question the finding did not, so it does not
    assert [p.sentence.position for p in picks.choose(scored, "how", 4, settings, one=True)] == [0, 1, 3]
    # in a summary of several papers, or for another intent, only sentences near the best one
    assert [p.sentence.position for p in picks.choose(scored, "how", 4, settings)] == [0, 3]
    assert [p.sentence.position for p in picks.choose(scored, "results", 4, settings, one=True)] == [0, 3]
    # the floor is a setting
    strict = settings.model_copy(update={"method_floor": settings.next_sentence_floor})
    assert [p.sentence.position for p in picks.choose(scored, "how", 4, strict, one=True)] == [0, 3]


def test_words_akin_are_one_words_stems() -> None:
    assert (
        picks._akin("leak", "leakag") and picks._akin("stimuli", "stimulus") and picks._akin("heterogen", "heterogen")
    )
    assert not picks._akin("data", "dynam") and not picks._akin("infer", "inform")


def test_asked_how_one_named_paper_works_the_answer_gives_its_mechanism(seeded_bot) -> None:
    """Round 8 of judging: 'how does BrainVista stop ... leaking' left out the masking that does it."""
    answer = seeded_bot.ask(
        "how does BrainVista stop future brain states or future stimuli from leaking into its fMRI forecasts"
    )
    assert "Stimulus-to-Brain masking" in answer.markdown
    answer = seeded_bot.ask("How does CaC localize a subtle anomaly in a generated video at inference time?")
    assert "global temporal scan" in answer.markdown
    assert "large-scale generated video anomaly dataset" not in answer.markdown  # not every method sentence


def test_a_part_asking_how_one_paper_works_gets_the_method_sentence_it_lacks() -> None:
    settings = AnswerSettings()
    scored = _mechanism_picks()
    chosen = [scored[0], scored[3]]  # the contribution and the finding, chosen for the question as a whole
    how = [replace(p, matched=m) for p, m in zip(scored, [{"anomali"}, {"infer"}, set(), {"anomali"}], strict=True)]
    both = picks.each_part(chosen, [("how", how)], settings, one=True)
    assert [p.sentence.position for p in both] == [0, 1, 3]  # the inference steps say "inference"
    assert picks.each_part(chosen, [("how", how)], settings) == chosen  # not in a summary of several papers
    assert picks.each_part(chosen, [("results", how)], settings, one=True) == chosen


def test_asked_two_things_of_one_paper_each_gets_its_mechanism(seeded_bot) -> None:
    """Round 11: 'How does SORT decide which tokens ... deserve bigger updates, and why does it score each token
    twice?' explained the double scoring but not which tokens get larger updates."""
    answer = seeded_bot.ask(
        "How does SORT decide which tokens of a reference solution deserve bigger updates, and why does it score "
        "each token twice?"
    )
    assert "scores every reference token twice" in answer.markdown
    assert "receive larger Dynamic Fine-Tuning updates" in answer.markdown


@pytest.mark.parametrize(
    ("sentence", "artifact", "made"),
    [
        ("We introduce C2G-BENCH, a cyber-physical benchmark for hierarchical RL.", "benchmark", True),
        ("To support this, we present a benchmark that contributes metrics and baselines.", "benchmark", True),
        ("We release the benchmark, the pipeline and a prototype.", "benchmark", True),
        ("Furthermore, we curate a specialized dataset for multi-reward RL.", "dataset", True),
        # using one is not making one
        ("Extensive experiments on DUD-E and LIT-PCBA benchmarks show consistent gains.", "benchmark", False),
        ("We evaluate on HealthHandoff-Bench, a synthetic benchmark of 21,600 tasks.", "benchmark", False),
        ("We propose CURE, which we test on the D4RL dataset.", "benchmark", False),
        ("We introduce C2G-BENCH, a cyber-physical benchmark.", "simulator", False),
    ],
)
def test_a_sentence_makes_a_kind_of_thing_only_when_it_says_the_paper_made_it(
    sentence: str, artifact: str, made: bool
) -> None:
    assert roles.makes(sentence, artifact) is made


@pytest.mark.parametrize(
    ("sentence", "leans"),
    [
        ("On such trajectories, teacher supervision can become noisy.", True),
        ("In these settings, the critic diverges.", True),
        ("In this paper, we propose X.", False),
        ("On MuJoCo, X beats Y by 5%.", False),
    ],
)
def test_a_preposition_before_the_pointing_word_still_leans_back(sentence: str, leans: bool) -> None:
    assert roles.leans_back(sentence) is leans


GRID = [
    "Deep decarbonization is transforming power grids into safety-critical cyber-physical systems.",
    "We propose a risk-constrained reinforcement learning framework for low-carbon grid operation.",
    "On three grid benchmarks, a CVaR constraint on tail risk reduced grid violations by 40%.",
]


def test_a_list_line_is_the_contribution_rather_than_the_fields_background() -> None:
    """Round 29: "Which papers deal with power grids?" showed a paper's opening "Deep decarbonization is
    transforming power grids ..." (what the field is about) rather than what the paper does."""
    read = roles.read(GRID, None)
    assert [s.role for s in read] == ["problem", "contribution", "finding"]
    settings = AnswerSettings()

    def line(matched: list[set[str]], scores: list[float]) -> int:
        scored = [picks.Pick(HIT, s, v, frozenset(m)) for s, v, m in zip(read, scores, matched, strict=True)]
        headline = picks.headline(scored, settings)
        assert headline is not None
        return headline.sentence.position

    # the contribution names a word of the question ("grid"): it stays, though the background scores higher
    assert line([{"power", "grid"}, {"grid"}, {"grid"}], [0.6, 0.4, 0.3]) == 1
    # a contribution naming none of the question's words gives way to the sentence that shows the match
    assert line([{"power", "grid"}, set(), {"grid"}], [0.6, 0.4, 0.3]) == 0
    # so does it to a closer sentence saying what the paper did (not background)
    assert line([{"power"}, {"grid"}, {"grid", "violat"}], [0.3, 0.4, 0.6]) == 2


def test_a_summary_of_what_a_paper_is_says_what_it_found() -> None:
    """Round 30: "privacy unlearning offline RL" named CURE and what it proposes, then no result."""
    texts = [
        "Unlearning in offline RL is hard when forget and retain data overlap.",
        "We propose CURE, a selective unlearning framework.",
        "CURE gates critic suppression by gradient alignment.",
        "Across MuJoCo benchmarks, CURE improves the forget-utility trade-off at 5% of retraining cost.",
        "It also achieves returns near the original.",
    ]
    read = roles.read(texts, "CURE")
    assert [s.role for s in read] == ["problem", "contribution", "method", "finding", "finding"]
    settings = AnswerSettings()
    scored = _scored(read, [0.6, 0.5, 0.4, 0.2, 0.3])
    chosen = [scored[1], scored[2]]
    # the finding with a number, not the one leaning on it, joins in the abstract's order
    assert [p.sentence.position for p in picks.with_finding(chosen, scored, settings)] == [1, 2, 3]
    # an answer already saying what was found is left as it is
    assert picks.with_finding([scored[1], scored[3]], scored, settings) == [scored[1], scored[3]]


def test_an_answer_resting_on_one_paper_says_how_it_works() -> None:
    """Round 38: "RL fine-tuning of self-driving planners" gave CRAFT's contribution and its result, not how it
    works; the method sentence closest to the question joins, in the abstract's order."""
    texts = [
        "Closed-loop post-training of driving planners is unstable.",
        "We introduce CRAFT, an on-policy framework for closed-loop post-training.",
        "CRAFT uses counterfactual advantages as a dense proxy for closed-loop advantages.",
        "CRAFT distills toward an EMA teacher to stabilize training.",
        "Empirically, CRAFT achieves the strongest closed-loop gains on Bench2Drive.",
    ]
    read = roles.read(texts, "CRAFT")
    assert [s.role for s in read] == ["problem", "contribution", "method", "method", "finding"]
    settings = AnswerSettings()
    scored = _scored(read, [0.6, 0.5, 0.4, 0.3, 0.45])
    chosen = [scored[1], scored[4]]
    assert [p.sentence.position for p in picks.with_mechanism(chosen, scored, settings)] == [1, 2, 4]
    # an answer already saying how it works is left as it is
    assert picks.with_mechanism([scored[1], scored[3]], scored, settings) == [scored[1], scored[3]]


def test_a_closing_purpose_clause_is_how_the_method_works_not_what_it_found() -> None:
    """h01: CURE's mechanism sentence ends ", reducing impact on aligned data" and was read as a finding, so
    the answer gave its first-order analysis as how it works."""
    texts = [
        "Unlearning in offline RL is hard when forget and retain data overlap.",
        "We propose CURE, a selective unlearning framework.",
        "CURE scores each forget trajectory by gradient alignment and gates critic updates, reducing impact on "
        "aligned data.",
        "We provide a first-order analysis showing that CURE descends a forget surrogate.",
        "Across MuJoCo benchmarks, CURE reduces forgetting at near-original returns.",
        "CURE gates updates, improving the trade-off by 12% over baselines.",
    ]
    read = roles.read(texts, "CURE")
    assert [s.role for s in read] == ["problem", "contribution", "method", "method", "finding", "finding"]
    assert [roles.theory(t) for t in texts] == [False, False, False, True, False, False]
    scored = _scored(read, [0.6, 0.5, 0.3, 0.4, 0.45, 0.2])
    # the analysis scores higher, but states what is proved: the mechanism joins
    chosen = picks.with_mechanism([scored[1], scored[4]], scored, AnswerSettings())
    assert [p.sentence.position for p in chosen] == [1, 2, 4]


def test_where_the_code_is_never_answers() -> None:
    """h25: "The code is available at https://..." closed an answer about what GRGC is."""
    texts = [
        "We propose GRGC, a two-stage framework for black-box distillation.",
        "Experiments across teachers show GRGC improves accuracy by 3 points.",
        "The code is available at https://example.org/grgc for reproduction of all experiments.",
        "Our models and data will be publicly released upon acceptance of this paper.",
    ]
    read = roles.read(texts, "GRGC")
    scored = _scored(read, [0.3, 0.2, 0.9, 0.8])
    settings = AnswerSettings()
    assert [p.sentence.position for p in picks.choose(scored, "what", 3, settings)] == [0, 1]
    assert picks.headline(scored, settings).sentence.position == 0  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("sentence", "points"),
    [
        ("We show that this choice can create a compounding teacher-student mismatch.", True),
        ("We present BLUE, a framework that unifies these two forms of user representation.", True),
        ("We study budgeted acquisition of such annotations for contextual-bandit OPE.", True),
        ("In this paper, methods such as PPO are compared on tasks such that rewards are sparse.", False),
        ("Q-MMR learns a set of scalar weights, one for each data point.", False),
    ],
)
def test_a_word_inside_a_sentence_can_point_at_an_earlier_one(sentence: str, points: bool) -> None:
    assert roles.points_back(sentence) is points


def test_an_answer_does_not_open_on_a_sentence_pointing_at_one_not_shown() -> None:
    """h29, h44: MPOPD's answer opened "The authors show that this choice can create a compounding
    teacher-student mismatch", and "this choice" is said only in the sentence before it."""
    texts = [
        "The rollout policy in OPD is usually treated as fixed: each round samples from the current student.",
        "We show that this choice can create a compounding teacher-student mismatch.",
        "We propose MPOPD, which samples rollouts from a mixture of the student and the teacher.",
        "On math reasoning, MPOPD improves average accuracy by 6.91 over OPD.",
    ]
    read = roles.read(texts, "MPOPD")
    assert [s.points for s in read] == [False, True, False, False]
    assert not read[1].leans_back  # inside the sentence: it still answers where its predecessor is shown
    scored = _scored(read, [0.4, 0.7, 0.5, 0.7])
    chosen = picks.choose(scored, "what", 3, AnswerSettings())
    assert [p.sentence.position for p in chosen] == [1, 2, 3]
    assert [p.sentence.position for p in picks.opening(chosen)] == [2, 3]
    # a contribution pointing back stays: it is what the paper is
    contribution = _scored(roles.read([texts[1].replace("We show", "We propose MPOPD and show")], "MPOPD"), [0.5])
    assert picks.opening(contribution) == contribution


def test_a_guarantee_the_paper_establishes_is_what_it_found() -> None:
    """h22: "explain Q-MMR" left out its dimension-free finite-sample guarantee, read as a method sentence,
    and the answer about a paper without experiments had no finding to add."""
    texts = [
        "We present a novel theoretical framework, Q-MMR, for off-policy evaluation in finite-horizon MDPs.",
        "Q-MMR learns a set of scalar weights, one for each data point.",
        "Notably, and perhaps surprisingly, a data-dependent finite-sample guarantee can be established under "
        "only realizability.",
        "We also establish connections to several existing methods, such as linear FQE.",
    ]
    read = roles.read(texts, "Q-MMR")
    assert [s.role for s in read] == ["contribution", "method", "finding", "method"]
    assert read[2].text.startswith("A data-dependent finite-sample guarantee")  # both openers dropped
    scored = _scored(read, [0.6, 0.5, 0.3, 0.35])
    chosen = picks.with_finding(scored[:2], scored, AnswerSettings())
    assert [p.sentence.position for p in chosen] == [0, 1, 2]


def test_what_a_step_would_yield_is_how_the_method_works_not_what_it_found() -> None:
    """h25: GRGC's "To improve critic-side conditioning, Gaussian groupwise Optimal Transport calibration
    regularizes the critic ..." was read as a finding ("improve"), so "what is GRGC?" never said its first
    stage."""
    texts = [
        "We propose GRGC, a two-stage framework that shapes reward groups.",
        "To improve critic-side conditioning, optimal transport calibration regularizes the critic.",
        "Each period, the agent decides whether deviating would yield a welfare gain.",
        "GRGC improves accuracy on in-distribution evaluations.",
        "Calibration is used to improve the critic, raising accuracy by 3 points.",
    ]
    assert [s.role for s in roles.read(texts, "GRGC")] == ["contribution", "method", "finding", "finding", "finding"]
    # "gain" is still a finding's word in the third; in the second, "to improve" is what the step is for
    assert [s.role for s in roles.read(texts[:2] + texts[3:], "GRGC")] == [
        "contribution",
        "method",
        "finding",
        "finding",
    ]


def test_a_recap_without_a_number_says_nothing_new() -> None:
    """h41: "By combining automated collection, hierarchical refinement, and iterative learning, our method
    enables scalable, reliable training ..." repeated the contribution before it; judges called it padding."""
    texts = [
        "We propose a framework of three components: collection, refinement and iterative learning.",
        "By combining automated collection, refinement and learning, our method enables scalable training.",
        "Across two benchmarks, the method improves hard-task success rates.",
        "Overall, success rises by 12% over reversal baselines.",
    ]
    scored = _scored(roles.read(texts), [0.5, 0.9, 0.6, 0.4])
    # the recap scores best against the question, yet is never chosen
    assert [p.sentence.position for p in picks.choose(scored, "summary", 4, AnswerSettings())] == [0, 2]
    # "Overall, ..." with a number says what was found: without the other finding it is the one added
    assert [p.sentence.position for p in picks.with_finding(scored[:1], scored[:2] + scored[3:], AnswerSettings())] == [
        0,
        3,
    ]


def test_further_with_a_comma_only_links_the_sentence() -> None:
    text = roles.stand_alone("Further, the temporal pattern of spending is front-loaded: overrides peak on Mondays.")
    assert text.startswith("The temporal pattern") and not roles.leans_back(text)
    assert roles.leans_back(roles.stand_alone("Further theoretical analyses shed new light on coverage."))


def test_where_the_results_lie_is_not_what_they_found() -> None:
    """h20: CS-DICE's "Most of the results focus on the soft reverse-KL case, ..." was read as a finding
    ("results") and answered "what's the difference?" in place of what CS-DICE recovers."""
    texts = [
        "We propose CS-DICE, a DICE variant that regularizes toward a coherent slice.",
        "Most of the results focus on the soft reverse-KL case, where the selector changes the reference.",
        "Our experiments mainly concentrate on MuJoCo, where CS-DICE improves return by 12%.",
        "Controlled examples show that pooled references collapse, while CS-DICE recovers high return policies.",
    ]
    assert [s.role for s in roles.read(texts, "CS-DICE")] == ["contribution", "method", "finding", "finding"]


def test_a_finding_that_a_way_works_is_measured_not_proved() -> None:
    """Round 47: asked for a way to do something, the answer adds what the way achieved in experiments; NCTS's
    "main theoretical result is a PAC-Bayesian bound" is what it proves, not that it works."""
    assert roles.measured("On AIME24 and AIME25, STARE outperforms DAPO by 4%-8% in average accuracy.")
    assert not roles.measured("Our main theoretical result is a causal PAC-Bayesian excess-risk bound.")
    texts = [
        "We propose NCTS, a Thompson sampling method for nested bandits.",
        "Our main theoretical result is an excess-risk bound that certifies deployment policies.",
        "Experiments show NCTS transfers better zero-shot.",
    ]
    scored = _scored(roles.read(texts, "NCTS"), [0.6, 0.5, 0.2])
    settings = AnswerSettings()
    assert [p.sentence.position for p in picks.with_finding(scored[:1], scored, settings)] == [0, 1]
    assert [p.sentence.position for p in picks.with_finding(scored[:1], scored, settings, measured=True)] == [0, 2]


def test_a_first_clause_pointing_back_needs_the_sentence_before_one_pointing_within_itself_does_not():
    assert roles.opens_pointing("Our analysis reveals that this limitation primarily stems from data staleness.")
    assert not roles.opens_pointing(
        "Offline RL methods often regularize toward the empirical occupancy, but this reference can mismatch."
    )
    assert not roles.opens_pointing("Offline RL methods often regularize toward the empirical occupancy.")
