"""An evaluation's result: metrics per system, notes for people and details for JSON, printed as a
terminal table or markdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NAMES = {
    "paperbot": "paperbot (hybrid)",
    "bm25": "BM25 alone",
    "dense": "dense alone (MiniLM)",
    "rrf": "RRF of BM25 + dense (k=60)",
}


@dataclass(frozen=True)
class EvalReport:
    """Metrics per system (None where a metric does not apply), notes for people, details for JSON."""

    title: str
    columns: tuple[str, ...]
    rows: dict[str, dict[str, float | None]]
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "metrics": self.rows, **self.details}

    def _cells(self) -> list[list[str]]:
        return [
            [NAMES.get(name, name)] + ["-" if m.get(c) is None else f"{m[c]:.3f}" for c in self.columns]
            for name, m in self.rows.items()
        ]

    def table(self) -> str:
        """Aligned plain-text table for a terminal."""
        head = ["system", *self.columns]
        cells = self._cells()
        widths = [max(len(r[i]) for r in [head, *cells]) for i in range(len(head))]
        lines = [self.title, ""] + [
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in [head, *cells]
        ]
        return "\n".join(lines + ([""] if self.notes else []) + list(self.notes))

    def markdown(self) -> str:
        """The table as markdown, for docs/."""
        lines = [f"### {self.title}", "", "| system | " + " | ".join(self.columns) + " |"]
        lines.append("|---|" + "---:|" * len(self.columns))
        lines += ["| " + " | ".join(r) + " |" for r in self._cells()]
        return "\n".join(lines + ([""] if self.notes else []) + [f"- {n}" for n in self.notes]) + "\n"
