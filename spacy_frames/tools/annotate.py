"""Annotate raw text with a trained pipeline and render its frames for people."""

from typing import List, Sequence

import spacy
from spacy.tokens import Doc

from ..extensions import install_extensions


def annotate(model: str, text: str, exclude: Sequence[str] = ()) -> Doc:
    install_extensions()
    nlp = spacy.load(model, exclude=list(exclude))
    return nlp(text)


def format_doc(doc: Doc) -> str:
    lines: List[str] = [doc.text, ""]
    frames = doc._.frames
    if not frames:
        lines.append(
            "(no frames: this pipeline has no frame component yet)"
            if "frames" not in doc.spans
            else "(no frame-evoking targets found)"
        )
    for span in frames:
        ranking = span._.frame_ranking or []
        alternatives = ", ".join(f"{name} {score:.2f}" for name, score in ranking[1:4])
        lu = span._.lexical_unit or "-"
        induced = ""
        if span._.induced_frame:  # frame_inducer: cluster id (and its most common FrameNet frame)
            induced = f"  induced {span._.induced_frame} ({span._.induced_frame_label or '?'})"
        lines.append(f"{span.text!r:24} {lu:18} {span._.frame:28} {alternatives}{induced}")
        for fe in span._.frame_elements:  # frame_elements: the frame's arguments, in text order
            lines.append(f"{'':4}{fe.label_:20} {_short(fe.text)!r}")
    relations = doc._.discourse_relations
    if relations:  # discourse_sense: one line per argument pair
        lines.extend(["", "discourse relations:"])
        for rel in relations:
            arg1, arg2 = doc.text[slice(*rel["arg1"])], doc.text[slice(*rel["arg2"])]
            lines.append(f"{_short(arg1)!r} -> {_short(arg2)!r}: {rel['sense']} ({rel['score']:.2f})")
    if doc._.media_frames:  # media_framer: the article's frames, best first
        lines.extend(
            ["", "media frames: " + ", ".join(f"{f} ({doc.cats.get(f, 0.0):.2f})" for f in doc._.media_frames)]
        )
    return "\n".join(lines)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
