"""ingest.decoding through read_file: UTF-16 with and without a byte-order mark, binary files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.errors import FormatError
from ingest.readers import read_file

TEXT = "ICML 2025\n\nCafé owners study espresso.\n\nA second abstract.\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_byte_order_mark_decides_the_encoding(tmp_path: Path, encoding: str) -> None:
    # Regression: Excel's "Unicode text" (UTF-16 with a BOM) was refused as binary, even with --encoding utf-16.
    path = tmp_path / "x.txt"
    bom = {"utf-16": b"", "utf-16-be": b"\xfe\xff", "utf-32": b""}[encoding]
    path.write_bytes(bom + TEXT.encode(encoding))
    records = read_file(path)
    assert [r.text for r in records] == ["Café owners study espresso.", "A second abstract."]
    assert [r.source.line for r in records] == [3, 5]


def test_utf16_csv_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes("title\tabstract\nEspresso\tCafé owners study espresso.\n".encode("utf-16"))
    (record,) = read_file(path)
    assert (record.title, record.text) == ("Espresso", "Café owners study espresso.")


def test_explicit_utf16_decodes_before_any_nul_check(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(TEXT.encode("utf-16-le"))  # no byte-order mark
    assert len(read_file(path, encoding="utf-16-le")) == 2


def test_utf16_without_a_mark_is_refused_with_the_encoding_to_pass(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(TEXT.encode("utf-16-le"))
    with pytest.raises(FormatError) as info:
        read_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: looks like a binary file (NUL byte at offset 1)")
    assert message.endswith("if it is UTF-16 text without a byte-order mark, pass --encoding utf-16-le")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_binary_files_are_still_refused(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"%PDF-1.4\n" + random.Random(1).randbytes(4096))
    with pytest.raises(FormatError) as info:
        read_file(path, encoding=encoding)
    message = str(info.value)
    assert message.startswith(f"{path}: looks like a binary file (NUL ") or f"not valid {encoding}" in message
    assert "without a byte-order mark" not in message


def test_text_misread_as_utf16_is_refused_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"%PDF-1.4\n\x00\x00\x01\x02streams")
    with pytest.raises(FormatError, match=r"looks like a binary file \(NUL or control character U\+0001"):
        read_file(path, encoding="utf-16-be")
