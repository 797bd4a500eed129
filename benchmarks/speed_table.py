"""The targets of issue 18 and the markdown table benchmarks/speed.py prints from its result.

Reads a finished result dict only; measures nothing (benchmarks/speed.py does).
"""

from __future__ import annotations

import os
from typing import Any


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of issue 18 with its measured value and whether it is met (None: not measured)."""
    large, users, cli = result["large"], result["users"], result["paperbot"]
    kept = result.get("kept") or {}
    kept_users = kept.get("users") or {}
    rows: list[tuple[str, str, float | None, float, str]] = [  # (name, unit, value, limit, "min" or "max")
        ("ingest / raw model", "x", result["ratios"]["paperbot_ingest_per_raw_model"], 1.0, "min"),
        ("search p50, large store", "ms", large and large["search"]["p50_ms"], 20, "max"),
        ("search p95, large store", "ms", large and large["search"]["p95_ms"], 40, "max"),
        ("ask p50, large store", "ms", large and large["ask"]["p50_ms"], 100, "max"),
        ("ask p95, large store", "ms", large and large["ask"]["p95_ms"], 250, "max"),
        ("cold search", "s", cli["cold_search_s"], 2.0, "max"),
        ("--help", "s", cli["help_s"], 0.5, "max"),
        ("reader RSS, large store", "MB", large and large["ask_process_rss_mb"], 600, "max"),
        ("20 users answer p95", "s", users and users.get("p95_s"), 1.0, "max"),
        # the same users past their first questions, which all 20 send within one second
        ("20 users answer p95, after 10 s", "s", users and users.get("p95_after_10s_s"), 1.0, "max"),
        # the same store with its sentence vectors kept (`ingest --sentences`), when --sentences measured it
        ("ask p50, large store, sentences kept", "ms", kept.get("ask", {}).get("p50_ms"), 100, "max"),
        ("ask p95, large store, sentences kept", "ms", kept.get("ask", {}).get("p95_ms"), 250, "max"),
        ("20 users answer p95, sentences kept", "s", kept_users.get("p95_s"), 1.0, "max"),
    ]
    return [
        {
            "target": name,
            "limit": f"{'>=' if kind == 'min' else '<='} {limit:g} {unit}",
            "value": value,
            "unit": unit,
            # How far from the limit: e.g. p95 120 ms against <= 40 ms -> 3.0x off
            "off": None if not value else round(limit / value if kind == "min" else value / limit, 2),
            "met": None if value is None else (value >= limit if kind == "min" else value <= limit),
        }
        for name, unit, value, limit, kind in rows
    ]


def verdict(result: dict[str, Any], *names: str) -> str:
    """'met', 'not met (...)' or 'not measured' for the named targets together."""
    rows = [t for t in result["targets"] if t["target"] in names]
    if any(t["met"] is None for t in rows):
        return "not measured"
    shown = {"x": "{:.2f}x", "ms": "{:.0f} ms", "s": "{:.2f} s", "MB": "{:,.0f} MB"}
    missed = [
        f"{t['target'].split(',')[0]} {shown[t['unit']].format(t['value'])}, {t['off']:.1f}x off"
        for t in rows
        if not t["met"]
    ]
    return "met" if not missed else f"**not met** ({'; '.join(missed)})"


def table(result: dict[str, Any]) -> str:
    """The markdown table of issue 18, with the targets and ratios."""
    raw, tut, bot, large, users = (result[k] for k in ("raw", "tutorial", "paperbot", "large", "users"))
    n, runs = f"{result['papers']:,}", result["runs"]
    big = f"{large['papers']:,}" if large else "large store"
    lines = [
        f"{n} abstracts of {result['corpus']}; {result['questions']} questions (each once); "
        f"ingest: median of {runs} run{'s' * (runs > 1)}",
        "",
        "| | paperbot | LangChain + Chroma tutorial pipeline | raw `SentenceTransformer.encode` | "
        "target (issue 18) | |",
        "|---|---:|---:|---:|---|---|",
        f"| ingest, abstracts/s | **{bot['ingest_per_s']:.1f}** ({bot['chunks']:,} chunks, {bot['precision']}) | "
        f"{tut['ingest_per_s']:.1f} ({tut['chunks']:,} chunks) | {raw['ingest_per_s']:.1f} (whole abstracts, fp32) "
        f"| >= 1.0x raw model | {verdict(result, 'ingest / raw model')} |",
        f"| search p50 / p95, {n} papers, warm | {bot['search']['p50_ms']:.0f} / {bot['search']['p95_ms']:.0f} ms "
        f"(k=10) | {tut['search']['p50_ms']:.0f} / {tut['search']['p95_ms']:.0f} ms (`similarity_search`, k=4) "
        "| | | |",
    ]
    if large:
        lines += [
            f"| search p50 / p95, {big} papers, warm | {large['search']['p50_ms']:.0f} / "
            f"{large['search']['p95_ms']:.0f} ms | | | <= 20 / 40 ms | "
            f"{verdict(result, 'search p50, large store', 'search p95, large store')} |",
            f"| ask p50 / p95, {big} papers, warm (extractive) | {large['ask']['p50_ms']:.0f} / "
            f"{large['ask']['p95_ms']:.0f} ms | | | <= 100 / 250 ms | "
            f"{verdict(result, 'ask p50, large store', 'ask p95, large store')} |",
        ]
    lines += [
        f"| cold `paperbot search --json` (one process, {n} papers; median of {result['cold_runs']}) | "
        f"{bot['cold_search_s']:.2f} s | | | <= 2 s | {verdict(result, 'cold search')} |",
        f"| the same, question embedded by sentence-transformers (`embed.engine=torch`) | "
        f"{bot['cold_search_torch_s']:.2f} s ({bot['cold_search_torch_s'] / bot['cold_search_s']:.1f}x the numpy path) "
        "| | | | |",
        f"| `paperbot --help` (median of 5) | {bot['help_s']:.2f} s | | | <= 0.5 s | {verdict(result, '--help')} |",
    ]
    if large:
        lines.append(
            f"| `paperbot ask --json` process peak RSS, {big} papers | {large['ask_process_rss_mb']:,.0f} MB | | | "
            f"<= 600 MB | {verdict(result, 'reader RSS, large store')} |"
        )
    kept = result.get("kept")
    if kept:
        done = kept["sentences"]
        lines.append(
            f"| ask p50 / p95, {big} papers, warm, the abstracts' {done['sentences']:,} sentences kept "
            f"(`ingest --sentences`; {done['embedded']:,} embedded in this run, {done['seconds']:.0f} s) | "
            f"{kept['ask']['p50_ms']:.0f} / {kept['ask']['p95_ms']:.0f} ms | | | <= 100 / 250 ms | "
            f"{verdict(result, 'ask p50, large store, sentences kept', 'ask p95, large store, sentences kept')} |"
        )
    if users:
        lines.append(
            f"| {users['users']} concurrent chat users, answer p95 ({users['store']}, {users['seconds']:.0f} s) | "
            f"{users['p95_s']} s | | | <= 1 s | {verdict(result, '20 users answer p95')} |"
        )
        lines.append(
            f"| the same, questions asked after the first 10 s (the 20 first questions arrive within 1 s) | "
            f"{users.get('p95_after_10s_s')} s | | | <= 1 s | {verdict(result, '20 users answer p95, after 10 s')} |"
        )
    if kept and kept.get("users"):
        lines.append(
            f"| the same chat users, the sentences kept | {kept['users']['p95_s']} s | | | <= 1 s | "
            f"{verdict(result, '20 users answer p95, sentences kept')} |"
        )
    r = result["ratios"]
    lines += [
        "",
        f"Ratios: paperbot ingest / raw model **{r['paperbot_ingest_per_raw_model']:.2f}x**, "
        f"paperbot ingest / tutorial **{r['paperbot_ingest_per_tutorial']:.2f}x**, "
        f"search p50 tutorial / paperbot **{r['search_p50_tutorial_per_paperbot']:.2f}x** (above 1: paperbot faster).",
        f"Word pieces embedded per abstract: paperbot {bot['word_pieces_per_abstract']:.0f}, tutorial "
        f"{tut['word_pieces_per_abstract']:.0f}, raw model {raw['word_pieces_per_abstract']:.0f}; paperbot's model "
        f"time is {bot['embed_share']:.0%} of its ingest.",
    ]
    if large:
        how = "reused from --workdir" if large["reused"] else f"built at {large['ingest_per_s']:.1f} abstracts/s"
        lines.append(
            f"Large store: {large['papers']:,} papers, {large['chunks']:,} chunks ({how}); searches with hits "
            f"{large['search']['with_hits']}, asks answered {large['ask']['answered']}, of {result['questions'] - 1}; "
            f"one `paperbot ask --json` process took {large['ask_process_s']:.1f} s."
        )
    skipped = [what for what, on in (("large store (--large 0)", large), ("chat users (--users 0)", users)) if not on]
    lines.append(
        f"Machine: {os.cpu_count()} cores, load average {result['load_start']:.2f} at start, "
        f"{result['load_end']:.2f} at end; {result['date']}; run took {result['seconds']:.0f} s"
        + (f"; not run: {', '.join(skipped)}." if skipped else ".")
    )
    return "\n".join(lines)
