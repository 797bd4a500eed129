"""Scores blind judgments of answer pairs: each version's means and how often the new one is preferred.

    .venv/bin/python tests/data/answers/score.py --key key.json judgments_*.jsonl

Each judgment line is {"id", "A": {"answers", "faithful", "concise"}, "B": {...}, "preference":
"A" | "B" | "tie"}; the key says which version ("old" or "new") was shown as A. Prints, per
version, the mean "answers" (0-3), the share answering fully (3), mean faithful and concise, then
how often the new version was preferred, and the ids where the new one scores lower. See
docs/answers.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.errors import FormatError
from bot.text import jsonl


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("judgments", type=Path, nargs="+")
    args = parser.parse_args(argv)
    key = json.loads(args.key.read_text(encoding="utf-8"))
    rows = [row for path in args.judgments for _, row in jsonl.read(path, FormatError, "fix the line")]
    scores: dict[str, list[dict]] = {"old": [], "new": []}
    preferred = {"new": 0, "old": 0, "tie": 0}
    worse = []
    for row in rows:
        a_is = key[row["id"]]
        b_is = "new" if a_is == "old" else "old"
        scores[a_is].append(row["A"])
        scores[b_is].append(row["B"])
        pick = row["preference"]
        preferred[a_is if pick == "A" else b_is if pick == "B" else "tie"] += 1
        new, old = (row["A"], row["B"]) if a_is == "new" else (row["B"], row["A"])
        if new["answers"] < old["answers"]:
            worse.append(row["id"])
    n = len(rows)
    out = {"questions": n}
    for version, got in scores.items():
        out[version] = {
            "answers": round(sum(s["answers"] for s in got) / n, 2),
            "fully": round(sum(s["answers"] == 3 for s in got) / n, 2),
            "faithful": round(sum(s["faithful"] for s in got) / n, 2),
            "concise": round(sum(s["concise"] for s in got) / n, 2),
        }
    out["preferred"] = {k: f"{v} of {n}" for k, v in preferred.items()}
    out["new_preferred_share"] = round(preferred["new"] / n, 2)
    out["new_scores_lower"] = worse
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
