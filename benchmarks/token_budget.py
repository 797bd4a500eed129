"""How many word pieces paperbot embeds per abstract under other chunk settings (issue 18's ingest lever).

Not a test (pytest does not collect it): a benchmark that prints measured numbers. It cuts the first
--papers records of a JSONL corpus (title and abstract, as ingest reads them) with each chunk setting
given and counts the model's word pieces ([CLS] and [SEP] included, cut at its input limit), against
the word pieces of the whole abstracts, which is what the raw model embeds in benchmarks/speed.py. It
embeds nothing: the model's time grows with the word pieces, so their ratio bounds what a setting can
gain. Whether a setting keeps retrieval is `paperbot eval` with it (docs/performance.md), e.g.
    PAPERBOT_CHUNK__OVERLAP_SENTENCES=0 paperbot --store /tmp/ov0 eval ../shared/corpora/scifact --split train

Run: .venv/bin/python benchmarks/token_budget.py --settings 120:1 120:0 160:1 200:1
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bot.embedder import load
from bot.settings import ChunkSettings, EmbedSettings
from bot.text.chunking import paper_chunks
from bot.types import Paper

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_conf_abstracts.jsonl"


def papers(corpus: Path, limit: int) -> list[Paper]:
    """The first `limit` records with an abstract, as papers with their titles; ValueError naming the
    file and line of one that is not a JSON object."""
    out: list[Paper] = []
    with corpus.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{corpus}:{number}: not JSON ({exc.msg}); give one JSON object per line") from None
            if not isinstance(record, dict):
                raise ValueError(f"{corpus}:{number}: not a JSON object; give one JSON object per line")
            text = str(record.get("abstract") or record.get("text") or "").strip()
            if text:
                pid = str(len(out))
                out.append(Paper(pid, text, text, pid, pid, (), title=record.get("title") or None))
            if len(out) == limit:
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a JSONL corpus (default the ML abstracts)")
    parser.add_argument("--papers", type=int, default=1000, help="first N records (default 1000)")
    parser.add_argument(
        "--settings", nargs="+", default=["120:1", "120:0", "160:1", "200:1"], metavar="MAX_TOKENS:OVERLAP"
    )
    args = parser.parse_args()
    if not args.corpus.is_file():
        parser.error(f"{args.corpus} is not a file; pass --corpus with a JSONL corpus of abstracts")
    variants: list[tuple[int, int]] = []
    for setting in args.settings:
        parts = setting.split(":")
        if len(parts) != 2 or not all(part.isdigit() for part in parts) or int(parts[0]) < 16:
            parser.error(f"--settings {setting}: give MAX_TOKENS:OVERLAP pairs, MAX_TOKENS at least 16, e.g. 120:1")
        variants.append((int(parts[0]), int(parts[1])))
    model = load(EmbedSettings())
    limit = model.settings.max_word_pieces
    try:
        found = papers(args.corpus, args.papers)
    except ValueError as exc:
        parser.error(str(exc))
    if not found:
        parser.error(f"{args.corpus} holds no record with an abstract")
    whole = sum(min(model.word_pieces(f"{p.title}. {p.display}" if p.title else p.display), limit) for p in found)
    print(f"{len(found):,} abstracts of {args.corpus.name}; whole abstracts (title first): {whole / len(found):.0f}")
    print("| max_tokens | overlap | chunks per abstract | word pieces per abstract | / whole abstracts |")
    print("|---:|---:|---:|---:|---:|")
    for max_tokens, overlap in variants:
        chunk = ChunkSettings(max_tokens=max_tokens, overlap_sentences=overlap)
        chunks = [c for p in found for c in paper_chunks(p, chunk)]
        pieces = sum(min(model.word_pieces(c.text), limit) for c in chunks)
        print(
            f"| {max_tokens} | {overlap} | {len(chunks) / len(found):.2f} | {pieces / len(found):.0f} | "
            f"{pieces / whole:.2f}x |"
        )


if __name__ == "__main__":
    main()
