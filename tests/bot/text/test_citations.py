"""The shared citation format."""

from bot.text.citations import cite, marker, numbers_in


def test_cite_places_marker_before_final_punctuation():
    assert cite("GRPO is unstable.", (2,)) == "GRPO is unstable [2]."
    assert cite("Does it work?", (1, 3)) == "Does it work [1, 3]?"
    assert cite("No stop", (1,)) == "No stop [1]."


def test_numbers_round_trip():
    text = f"a {marker([1])} b {marker([2, 3])}"
    assert numbers_in(text) == [1, 2, 3]
