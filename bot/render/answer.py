"""What every rendering of an answer shares: the mark after sentences the citation checker did not
accept, and the line saying what a follow-up searched. Pure functions; used by the terminal
text (bot.render.text) and the chat markup (bot.render.html).
"""

from __future__ import annotations

from bot.text.citations import markers_and_stop
from bot.types import Answer

UNSUPPORTED_MARK = "⚠ *unsupported*"


UNSUPPORTED_NOTE = "⚠ marks a sentence that the abstracts it cites do not support."


def mark_unsupported(answer: Answer) -> str:
    """The answer's markdown with UNSUPPORTED_MARK after each sentence the checker did not accept.

    Example: a sentence "X does Y [1]." judged unsupported -> 'X does Y [1]. ⚠ *unsupported*'
    """
    markdown = answer.markdown
    cursor = 0  # sentences come in answer order: each is looked for after the one before it
    for sentence in answer.sentences:
        body = sentence.text.rstrip(" .!?")
        start = markdown.find(body, cursor) if body else -1
        if start < 0:
            continue
        end = start + len(body) + markers_and_stop(markdown[start + len(body) :])
        if sentence.supported is False:
            markdown = f"{markdown[:end]} {UNSUPPORTED_MARK}{markdown[end:]}"
            end += len(UNSUPPORTED_MARK) + 1
        cursor = end
    return markdown


def followup_line(answer: Answer) -> str | None:
    """What a rewritten follow-up searched, and the papers it was limited to.

    Example: '*Searched:* Which papers use MuJoCo? · *Only among:* Cal-SPI, ASCPO'
    """
    standalone = answer.standalone_question
    if not standalone or (standalone == answer.question and not answer.restricted_to):
        return None
    labels = {h.paper.paper_id: h.paper.label for h in answer.hits}
    labels |= {c.paper.paper_id: c.paper.label for c in answer.citations}
    labels |= dict(zip(answer.restricted_to, answer.restricted_labels, strict=False))
    line = f"*Searched:* {standalone}"
    if answer.restricted_to:
        line += " · *Only among:* " + ", ".join(labels.get(pid, pid) for pid in answer.restricted_to)
    return line
