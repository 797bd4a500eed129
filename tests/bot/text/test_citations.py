"""The shared citation format."""

from bot.text.citations import (
    MARKER,
    canonical_markers,
    citation_numbers,
    cite,
    is_citation,
    loose_numbers,
    marker,
    marker_numbers,
    markers_and_stop,
    markers_before_stop,
    numbers_in,
    split_after_brackets,
    without_trailing_markers,
)


def test_cite_places_marker_before_final_punctuation():
    assert cite("GRPO is unstable.", (2,)) == "GRPO is unstable [2]."
    assert cite("Does it work?", (1, 3)) == "Does it work [1, 3]?"
    assert cite("No stop", (1,)) == "No stop [1]."


def test_numbers_round_trip():
    text = f"a {marker([1])} b {marker([2, 3])}"
    assert numbers_in(text) == [1, 2, 3]


def test_loose_markers_take_the_shared_form_before_the_full_stop():
    text = "It works. [Abstract 1-2] Yes [3; 5]. Also [paper 2]. See [sic]."
    assert canonical_markers(text) == "It works [1, 2]. Yes [3, 5]. Also [2]. See [sic]."
    echoed = "[1] PenguinCount: We count penguins.\n\n- [Abstract 2]. TideBench: Tides rise\n"
    assert canonical_markers(echoed) == "PenguinCount: We count penguins [1].\n\n- TideBench: Tides rise [2]\n"


def test_loose_numbers_spell_out_short_runs_only():
    assert loose_numbers("X [1-3] and [Abstract 5].") == [1, 2, 3, 5]
    assert loose_numbers("[paper 1; 4] [2 and 3]") == [1, 4, 2, 3]
    assert loose_numbers("[1-25]") == [1, 25]  # a run of 25 citations is a typo, not a range


def test_an_interval_in_brackets_is_not_a_citation():
    assert citation_numbers("compare [1] and [3] on rewards in [0, 1]") == [1, 3]
    assert citation_numbers("lr in [1, 10], within [2, 4], range [1, 5], up to [3, 7]") == []
    assert citation_numbers("compare [1, 2] and [3]; [3, 1]") == [1, 2, 3, 3, 1]
    assert not is_citation(next(MARKER.finditer("see [0]")))
    assert marker_numbers(next(MARKER.finditer("see [1, 3]"))) == [1, 3]


def test_strict_markers_move_before_the_stop_and_off_the_sentence_end():
    assert markers_before_stop("It works. [2] Yes. [1][3]") == "It works [2]. Yes [1][3]."
    assert without_trailing_markers("A [1] and B [2].") == "A [1] and B."
    assert markers_and_stop(" [1] [2]. Next") == 9
    assert markers_and_stop("Next") == 0
    assert split_after_brackets("A [1]; B [2].") == ["A [1]", "; B [2]", "."]
