#!/usr/bin/env python3
"""Verify tests/data/questions.jsonl and tests/data/offtopic.jsonl against the seed abstracts.

Usage (from the repo root):
    python3 tests/data/check_questions.py [SEEDS_DIR]

SEEDS_DIR defaults to ./seeds next to the repo root (falling back to
/work/shared/seeds). Exits non-zero if any check fails.

Checks:
  * both files parse as JSON Lines with the expected fields; ids are unique;
  * every expected snippet is 40-80 characters and occurs verbatim in exactly
    ONE distinct abstract paragraph (identical paragraphs in several seed files
    count as one);
  * "single" questions name one abstract, "multi" questions two or more
    distinct abstracts;
  * no question copies 4+ consecutive words from any of its expected abstracts;
  * off-topic questions share no 4+ word run with any abstract;
  * at least 40 questions, 5 multi questions, 15 off-topic questions.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
QUESTIONS = HERE / "questions.jsonl"
OFFTOPIC = HERE / "offtopic.jsonl"
NGRAM = 4
MIN_SNIP, MAX_SNIP = 40, 80


def seeds_dir():
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    for cand in (REPO / "seeds", Path("/work/shared/seeds")):
        if cand.is_dir() and list(cand.glob("*.txt")):
            return cand
    sys.exit("no seeds directory found; pass it as the first argument")


def load_abstracts(folder):
    """Distinct abstract paragraphs, in first-seen order, with their source files."""
    abstracts = {}
    for path in sorted(folder.glob("*.txt")):
        lines = path.read_text(encoding="utf-8").split("\n")
        body = "\n".join(lines[1:])  # first line is the header
        for para in re.split(r"\n\s*\n", body):
            para = para.strip()
            if para:
                abstracts.setdefault(para, []).append(path.name)
    return list(abstracts.items())


def words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def ngrams(text, n=NGRAM):
    w = words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def read_jsonl(path, errors):
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"{path.name}:{lineno}: blank line")
            continue
        try:
            rows.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{lineno}: bad JSON: {exc}")
    return rows


def main():
    errors = []
    folder = seeds_dir()
    abstracts = load_abstracts(folder)
    texts = [a for a, _ in abstracts]
    grams = [ngrams(t) for t in texts]
    n_paras = sum(len(files) for _, files in abstracts)
    print(f"seeds: {folder} -> {n_paras} abstract paragraphs, {len(texts)} distinct")

    ids = set()
    covered = set()
    n_multi = 0
    questions = read_jsonl(QUESTIONS, errors)
    for lineno, row in questions:
        where = f"questions.jsonl:{lineno}"
        if set(row) != {"id", "question", "kind", "expected"}:
            errors.append(f"{where}: fields must be id, question, kind, expected; got {sorted(row)}")
            continue
        qid, question, kind, expected = row["id"], row["question"], row["kind"], row["expected"]
        if not re.fullmatch(r"q\d{2,}", str(qid)) or qid in ids:
            errors.append(f"{where}: bad or duplicate id {qid!r}")
        ids.add(qid)
        if not isinstance(question, str) or not question.strip():
            errors.append(f"{where}: empty question")
            continue
        if kind not in ("single", "multi"):
            errors.append(f"{where}: kind must be single or multi, got {kind!r}")
        if not isinstance(expected, list) or not expected:
            errors.append(f"{where}: expected must be a non-empty list")
            continue
        hits = []
        for snip in expected:
            if not isinstance(snip, str) or not MIN_SNIP <= len(snip) <= MAX_SNIP:
                errors.append(
                    f"{where}: snippet length {len(snip) if isinstance(snip, str) else '?'} "
                    f"not in {MIN_SNIP}-{MAX_SNIP}: {snip!r}"
                )
                continue
            found = [i for i, t in enumerate(texts) if snip in t]
            if len(found) != 1:
                errors.append(f"{where}: snippet found in {len(found)} distinct abstracts: {snip!r}")
                continue
            hits.append(found[0])
        if len(set(hits)) != len(hits):
            errors.append(f"{qid}: two snippets point at the same abstract")
        if kind == "single" and len(expected) != 1:
            errors.append(f"{qid}: single question must have exactly one snippet")
        if kind == "multi":
            n_multi += 1
            if len(set(hits)) < 2:
                errors.append(f"{qid}: multi question must name 2+ distinct abstracts")
        qgrams = ngrams(question)
        for i in set(hits):
            copied = qgrams & grams[i]
            if copied:
                runs = ", ".join(" ".join(g) for g in sorted(copied))
                errors.append(f"{qid}: copies {NGRAM}+ consecutive words from its abstract: {runs}")
        covered.update(hits)

    off = read_jsonl(OFFTOPIC, errors)
    off_ids = set()
    for lineno, row in off:
        where = f"offtopic.jsonl:{lineno}"
        if set(row) != {"id", "question"}:
            errors.append(f"{where}: fields must be id, question; got {sorted(row)}")
            continue
        if not re.fullmatch(r"o\d{2,}", str(row["id"])) or row["id"] in off_ids:
            errors.append(f"{where}: bad or duplicate id {row['id']!r}")
        off_ids.add(row["id"])
        if not isinstance(row["question"], str) or not row["question"].strip():
            errors.append(f"{where}: empty question")
            continue
        qgrams = ngrams(row["question"])
        for i, g in enumerate(grams):
            if qgrams & g:
                errors.append(f"{row['id']}: shares a {NGRAM}-word run with abstract #{i}")

    if len(questions) < 40:
        errors.append(f"only {len(questions)} questions (need 40+)")
    if n_multi < 5:
        errors.append(f"only {n_multi} multi questions (need 5+)")
    if len(off) < 15:
        errors.append(f"only {len(off)} off-topic questions (need 15+)")

    print(f"questions: {len(questions)} ({len(questions) - n_multi} single, {n_multi} multi)")
    print(f"distinct abstracts covered: {len(covered)} / {len(texts)}")
    print(f"off-topic questions: {len(off)}")
    missing = [i for i in range(len(texts)) if i not in covered]
    if missing:
        print("abstracts not covered:")
        for i in missing:
            print(f"  - {texts[i][:70]}...")
    if errors:
        print(f"FAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  " + e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
