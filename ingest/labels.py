"""Short labels for papers without titles, used in citations and lists.

A label is the name of the method, benchmark or framework an abstract introduces when it has
one ("CausalBind", "Cal-SPI", "χ-Bench"), otherwise a short phrase from its first sentence.
Works on display text (markdown and LaTeX already rendered). Labels are made distinct within
a corpus by `assign`.
"""

from __future__ import annotations

import re
from collections import Counter

from bot.text import sentences

# A name-like token: mixed case, capitals with digits or hyphens, or a Greek letter prefix.
_TOKEN = re.compile(r"[A-Za-z0-9\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff\-+.]*[A-Za-z0-9\u0370-\u03ff+]|[A-Z]{2,}")
_INTRO = re.compile(
    r"\b(?:we|this paper|this work|our)\s+(?:\w+\s+){0,2}?(?:propose|introduce|present|develop|"
    r"design|build|release|construct|contribute|curate|formalise|formalize|call|term|dub|name)"
    r"|\b(?:called|named|dubbed|termed|coined)\b",
    re.IGNORECASE,
)
# Well-known acronyms that abstracts use but rarely introduce.
_COMMON = {
    "AI",
    "ML",
    "RL",
    "LLM",
    "LLMs",
    "LM",
    "LMs",
    "MDP",
    "MDPs",
    "POMDP",
    "SFT",
    "RLHF",
    "RLVR",
    "GRPO",
    "PPO",
    "DPO",
    "NLP",
    "CV",
    "GPU",
    "GPUs",
    "CPU",
    "API",
    "APIs",
    "SOTA",
    "OOD",
    "IID",
    "KL",
    "MLP",
    "CNN",
    "RNN",
    "GNN",
    "GNNs",
    "VLM",
    "VLMs",
    "LMM",
    "LMMs",
    "MoE",
    "ViT",
    "BERT",
    "GPT",
    "PAC",
    "SGD",
    "Adam",
    "MSE",
    "FP4",
    "FP8",
    "FP16",
    "BF16",
    "TD",
    "MARL",
    "OPE",
    "SPI",
    "PMD",
    "IL",
    "NCO",
    "AFE",
    "fMRI",
    "EEG",
    "MRI",
    "DR",
    "KV",
    "QA",
    "SCM",
    "CoT",
    "RAG",
    "TPU",
    "BC",
    "IRL",
    "MCTS",
    "AUC",
    "F1",
    "US",
    "UK",
    "EU",
    "IMU",
    "IMUs",
    "STPP",
    "STPPs",
    "OPD",
    "PDA",
    "NeurIPS",
    "ICML",
    "ICLR",
    "Qwen3",
    "Qwen2.5",
    "Llama",
}
_STOP_START = {"the", "a", "an", "this", "these", "we", "in", "on", "for", "of", "while", "as"}
_MAX_PHRASE_WORDS = 4
# Verbs that end the subject phrase of an opening sentence.
_VERBS = {
    "is",
    "are",
    "has",
    "have",
    "was",
    "were",
    "can",
    "often",
    "remains",
    "remain",
    "offers",
    "offer",
    "enables",
    "aims",
    "estimates",
    "improves",
    "operate",
    "operates",
    "model",
    "models",
    "applies",
    "apply",
    "begin",
    "begins",
    "stresses",
    "rely",
    "relies",
    "becomes",
    "become",
    "produce",
    "produces",
    "provide",
    "provides",
    "require",
    "requires",
    "use",
    "uses",
}


def _name_like(token: str) -> bool:
    if len(token) < 2 or token in _COMMON or token.rstrip("s") in _COMMON or token[0].isdigit():
        return False
    if re.search(r"[\u0370-\u03ff]", token) and "-" in token:
        return True
    parts = token.split("-")
    if len(parts) > 1:
        if any(p.islower() for p in parts):
            return False  # LLM-based, Reflow-regularized, Stimulus-to-Brain
        if len(parts) == 2 and all(p[:1].isupper() and p[1:].islower() for p in parts):
            return False  # Multi-Agent, Off-Policy: descriptive compounds, not names
    if any(re.match(r"[A-Z]{2}[a-z]{4,}$", p) for p in parts):
        return False  # REinforcement, GRouped: capitals spelling out an acronym
    inner_caps = sum(c.isupper() for c in token[1:])
    has_lower = any(c.islower() for c in token)
    if token.isupper() and len(token) >= 3 and token.isalpha():
        return True  # PRISM, STAR, CARD, NCTS
    if inner_caps >= 1 and has_lower:
        return True  # CausalBind, ReFPO, Cal-SPI
    return inner_caps >= 1 and any(c.isdigit() or c == "-" for c in token)  # Q-MMR, X2-Y


def candidates(text: str) -> list[str]:
    """Names the abstract seems to introduce, best first.

    Example: candidates("We propose CausalBind, a binder. CausalBind wins.") -> ['CausalBind']
    """
    sents = sentences.split(text)
    counts: Counter[str] = Counter()
    score: Counter[str] = Counter()
    for index, sentence in enumerate(sents):
        intro = bool(_INTRO.search(sentence))
        for match in _TOKEN.finditer(sentence):
            token = match.group(0).rstrip(".-")
            if not _name_like(token):
                continue
            counts[token] += 1
            if intro:
                score[token] += 4
                # The first name after the introducing verb is the one introduced.
                verb = _INTRO.search(sentence)
                if verb and 0 <= match.start() - verb.end() <= 40:
                    score[token] += 3
                # "Long Name (ACRONYM)": the acronym is what later sentences use.
                if sentence[max(0, match.start() - 1) : match.start()] == "(":
                    score[token] += 2
            if index == 0 and not intro:
                score[token] -= 1  # background terms are defined in the opening sentence
    for token, n in counts.items():
        score[token] += min(n, 4)
        # Plural or possessive forms of a longer name count towards it.
        for other in counts:
            if other != token and other.startswith(token) and len(other) - len(token) <= 2:
                score[token] += counts[other]
            if other.endswith("-" + token) or other.startswith(token + "-"):
                score[other] += score[token] // 2  # CS-DICE is the named variant of DICE
    ranked = sorted(score, key=lambda t: (-score[t], text.find(t)))
    return [t for t in ranked if score[t] >= 4]


_WORD = re.compile(r"[\w\u0370-\u03ff][\w\u0370-\u03ff'\-]*")


def phrase(text: str) -> str:
    """A short phrase from the first sentence, for papers that name nothing.

    Example: phrase("Critical sequential decisions are rarely single-timescale.")
        -> 'Critical sequential decisions'
    """
    sentence = (sentences.split(text) or [text])[0]
    first = re.split(r"[(:;,\[]| - | – | — ", sentence)[0]
    # A sentence that opens with punctuation (": the teacher ...") has nothing before it: use it all.
    words = _WORD.findall(first) or _WORD.findall(sentence) or _WORD.findall(text)
    while words and words[0].lower() in _STOP_START:
        words = words[1:]
    picked: list[str] = []
    for word in words:
        if picked and word.lower() in _VERBS:
            break
        picked.append(word)
        if len(picked) >= _MAX_PHRASE_WORDS:
            break
    while len(picked) > 1 and picked[-1].lower() in _STOP_START | {"to", "with", "and", "from"}:
        picked.pop()
    label = " ".join(picked) or text.strip()[:40] or "Abstract"
    return label[0].upper() + label[1:]


def from_title(title: str) -> str:
    """A paper's label from its title: the name before a colon when there is a short one.

    Example: from_title("CausalBind: Causal Binding for Screening") -> 'CausalBind'
    """
    head, sep, _ = title.partition(":")
    return head.strip() if sep and 0 < len(head.strip()) <= 40 else title.strip()


def assign(texts: dict[str, str], taken: set[str], titles: dict[str, str] | None = None) -> dict[str, str]:
    """Distinct labels for papers {paper_id: display text}, avoiding labels already `taken`.

    Papers with a title are labelled from it; the others by the name they introduce.
    Example: assign({"p1": "We propose Foo-Net. Foo-Net ..."}, set()) -> {'p1': 'Foo-Net'}
    """
    titles = titles or {}
    used = {label.lower() for label in taken}
    labels: dict[str, str] = {}
    for pid in sorted(texts):
        title = titles.get(pid)
        options = [from_title(title), title.strip()] if title else [*candidates(texts[pid]), phrase(texts[pid])]
        label = next((o for o in options if o.lower() not in used), None)
        if label is None:
            base, n = options[0], 2
            while f"{base} ({n})".lower() in used:
                n += 1
            label = f"{base} ({n})"
        used.add(label.lower())
        labels[pid] = label
    return labels
