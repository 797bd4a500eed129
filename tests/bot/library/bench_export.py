"""Compare BibTeX escapers and writers on real abstracts: ours against pylatexenc.latexencode and bibtexparser.

Not a test (pytest does not collect it): a benchmark that prints measured numbers, for the
docstring of bot/library/export.py. Every title, author and abstract of a JSONL corpus
(default: the 8,647 abstracts of ../shared/corpora/ml_conf_abstracts.jsonl plus the seeds) is
escaped each way, written as BibTeX, parsed back with bibtexparser and its LaTeX-decoding
middleware, and compared with the original text: how many fields come back exactly, how many
outputs differ from ours, whether every entry parses, and the time.
Run: PYTHONPATH=. .venv/bin/python tests/bot/library/bench_export.py [corpus.jsonl ...]
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import bibtexparser
from bibtexparser import middlewares
from pylatexenc import latexencode

from bot.library import export
from bot.types import Paper, Source

Escape = Callable[[str], str]
DEFAULT = [Path("../shared/corpora/ml_conf_abstracts.jsonl")]


def _pylatexenc(rules: dict[int, str]) -> Escape:
    encoder = latexencode.UnicodeToLatexEncoder(
        conversion_rules=[latexencode.UnicodeToLatexConversionRule(latexencode.RULE_DICT, rules)],
        unknown_char_policy="keep",
        replacement_latex_protection="none",
    )
    return lambda text: encoder.unicode_to_latex(" ".join(text.split()))


def escapers() -> dict[str, Escape]:
    defaults = latexencode.get_builtin_conversion_rules("defaults")[0].rule
    ascii_only = {code: latex for code, latex in defaults.items() if code < 128}
    ours = {ord(c): latex for c, latex in export._LATEX.items()}
    every = latexencode.UnicodeToLatexEncoder(unknown_char_policy="keep")
    return {
        "ours (10 specials, Unicode kept)": export.latex_escape,
        "pylatexenc, our 10 rules": _pylatexenc(ours),
        "pylatexenc defaults, ASCII only": _pylatexenc(ascii_only),
        "pylatexenc defaults (é -> \\'e)": lambda text: every.unicode_to_latex(" ".join(text.split())),
    }


def texts(paths: list[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                out += [record.get("title") or "", record.get("abstract") or record.get("text") or ""]
                out += list(record.get("authors") or [])
    return [t for t in out if t.strip()]


def _decoded(value: str) -> str:
    # pylatexenc reads \textasciicircum{} as U+02C6 and '' as a closing quote; as text they are ^ and ".
    return value.replace("ˆ", "^")


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or DEFAULT
    corpus = texts(paths)
    print(f"{len(corpus)} fields (titles, abstracts, authors) from {', '.join(str(p) for p in paths)}")
    reference = [export.latex_escape(t) for t in corpus]
    for name, escape in escapers().items():
        started = time.perf_counter()
        escaped = [escape(t) for t in corpus]
        seconds = time.perf_counter() - started
        body = "\n".join(f"@misc{{k{i},\n  abstract = {{{v}}}\n}}\n" for i, v in enumerate(escaped))
        library = bibtexparser.parse_string(body, append_middleware=[middlewares.LatexDecodingMiddleware()])
        back = {e.key: _decoded(e.fields_dict["abstract"].value) for e in library.entries}
        exact = sum(back.get(f"k{i}") == " ".join(t.split()) for i, t in enumerate(corpus))
        same = sum(a == b for a, b in zip(escaped, reference, strict=True))
        print(
            f"{name:34} {seconds * 1000:7.0f} ms  same as ours {same}/{len(corpus)}  parse failures "
            f"{len(library.failed_blocks)}  read back exactly {exact}/{len(corpus)}"
        )
    papers = corpus_papers(paths)
    for fmt in ("bibtex", "ris"):
        started = time.perf_counter()
        export.render(papers, fmt)
        print(f"{fmt} export of {len(papers)} papers: {(time.perf_counter() - started) * 1000:.0f} ms")


def corpus_papers(paths: list[Path]) -> list[Paper]:
    """Each record as a Paper with its title, authors, year, venue and url (an untitled one every 50th)."""
    papers = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            r = json.loads(line)
            text = r.get("abstract") or r.get("text") or ""
            papers.append(
                Paper(
                    paper_id="p" + hashlib.sha1(text.encode()).hexdigest()[:12],
                    text=text,
                    display=text,
                    label=(r.get("title") or "untitled")[:30],
                    content_hash=hashlib.sha1(text.encode()).hexdigest(),
                    sources=(Source(str(path), line=n),),
                    title=None if n % 50 == 0 else r.get("title"),
                    authors=tuple(r.get("authors") or ()),
                    year=r.get("year"),
                    venue=r.get("venue"),
                    url=r.get("url"),
                )
            )
    return papers


if __name__ == "__main__":
    main()
