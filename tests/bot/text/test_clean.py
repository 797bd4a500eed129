"""bot.text.clean: lone surrogates become U+FFFD, counted; everything else is left as it was."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.text.clean import clean, clean_json, escaped, json_escaped, replaced_note, without_controls

# Text with surrogates in it: what a Latin-1 terminal byte or a "\ud800" JSON escape hands over.
SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
ANY_TEXT = st.text(st.one_of(st.characters(codec=None), SURROGATES), max_size=60)


def test_a_terminal_byte_and_a_json_escape_become_the_replacement_character() -> None:
    assert clean("caf\udce9 reinforcement learning") == ("caf\ufffd reinforcement learning", 1)
    assert clean(json.loads('"a\\ud800b\\udfffc"')) == ("a\ufffdb\ufffdc", 2)


def test_a_pair_held_as_two_characters_is_the_character_it_encodes() -> None:
    assert clean("smile \ud83d\ude00") == ("smile 😀", 0)


def test_clean_text_is_returned_unchanged_and_an_existing_replacement_is_not_counted() -> None:
    assert clean("χ-Bench \ufffd \x1b[31m") == ("χ-Bench \ufffd \x1b[31m", 0)


def test_json_values_are_cleaned_all_the_way_down_counted_by_field() -> None:
    value = {"title": "T\ud800", "authors": ["A\udc00", {"name": "B\udcff"}], "year": 2020, "k\ud800": "v"}
    fixed, found = clean_json(value)
    assert fixed == {"title": "T\ufffd", "authors": ["A\ufffd", {"name": "B\ufffd"}], "year": 2020, "k\ufffd": "v"}
    assert found == {"title": 1, "authors": 2, "k\ufffd": 1}
    assert clean_json(["ok", "x\udce9"]) == (["ok", "x\ufffd"], {"item 2": 1})
    assert clean_json("x\udce9") == ("x\ufffd", {"the value": 1})


def test_messages_show_the_byte_and_json_output_stays_valid() -> None:
    assert escaped("caf\udce9.txt \ud800") == "caf\\xe9.txt \\ud800"
    assert json.loads(json_escaped(json.dumps("caf\udce9", ensure_ascii=False))) == "caf\udce9"
    assert replaced_note(2).startswith("2 characters that are not valid Unicode")


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(ANY_TEXT)
def test_any_text_comes_out_encodable_and_cleaning_twice_changes_nothing(text: str) -> None:
    fixed, replaced = clean(text)
    fixed.encode("utf-8")  # raises on a lone surrogate
    assert clean(fixed) == (fixed, 0)
    assert replaced <= sum(0xD800 <= ord(c) <= 0xDFFF for c in text)
    if replaced == 0 and not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert fixed == text


def test_without_controls_drops_escape_sequences_and_spaces_other_controls() -> None:
    assert without_controls("\x1b[2J\x1b]0;pwned\x07Terminal codes") == "Terminal codes"
    assert without_controls("We propose \x1b[31mRedNet\x1b[0m.") == "We propose RedNet."
    assert without_controls("title\x1b]2;x\x1b\\ end\x9b1m") == "title end"
    assert without_controls("a\u202eb\tc\x00d") == "a b c d"
    assert without_controls("χ-Bench, café") == "χ-Bench, café"


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(st.text(st.characters(codec="utf-8")))
def test_without_controls_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    out = without_controls(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u202a\u202b\u202c\u202d\u202e" for c in out)
