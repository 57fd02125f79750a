"""See the parses: en_frames_trf's output as HTML, with displaCy's span style.

One displaCy block per frame (the target labelled "Frame · lexical unit", and "· F0042"
when frame_inducer assigned it a cluster; its frame elements labelled by FE name), so
overlapping frames never hide each other; under them the discourse relations and the
media frames of the document.

    from spacy_frames.render import render
    html = render(nlp.pipe(texts))            # a whole page
    displacy.serve(docs_for_displacy(doc), style="span", manual=True)   # or serve one doc
"""

import html as html_lib
from typing import Dict, Iterable, List

from spacy import displacy
from spacy.tokens import Doc

from .extensions import install_extensions

TARGET_LABEL_SEPARATOR = " · "
TARGET_COLOR = "#ffd166"


def frame_block(doc: Doc, frame) -> Dict:
    """displaCy's manual span format for one frame: its target and its frame elements."""
    label = frame.label_
    if frame._.lexical_unit:
        label += TARGET_LABEL_SEPARATOR + frame._.lexical_unit
    if frame._.induced_frame:
        label += TARGET_LABEL_SEPARATOR + frame._.induced_frame
    spans = [{"start_token": frame.start, "end_token": frame.end, "label": label}]
    spans += [{"start_token": fe.start, "end_token": fe.end, "label": fe.label_} for fe in frame._.frame_elements]
    return {"text": doc.text, "tokens": [t.text for t in doc], "spans": spans, "title": None}


def docs_for_displacy(doc: Doc) -> List[Dict]:
    install_extensions()
    return [frame_block(doc, frame) for frame in doc._.frames]


def _doc_notes(doc: Doc) -> str:
    items = []
    for rel in doc._.discourse_relations:
        arg1, arg2 = doc.text[slice(*rel["arg1"])], doc.text[slice(*rel["arg2"])]
        items.append(f"{_esc(_short(arg1))} → {_esc(_short(arg2))}: <b>{_esc(rel['sense'])}</b> ({rel['score']:.2f})")
    notes = ""
    if items:
        notes += (
            "<p class='sf-discourse'>Discourse relations:</p><ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
        )
    if doc._.media_frames:
        frames = ", ".join(f"{_esc(f)} ({doc.cats.get(f, 0.0):.2f})" for f in doc._.media_frames)
        notes += f"<p class='sf-media'>Media frames: {frames}</p>"
    return notes


def render_doc(doc: Doc, max_frames: int = 0) -> str:
    """The HTML of one doc: its frame blocks (at most `max_frames`, 0: all) and notes."""
    install_extensions()
    blocks = docs_for_displacy(doc)
    if max_frames:
        blocks = blocks[:max_frames]
    parts = [f"<div class='sf-doc'><p class='sf-text'>{_esc(doc.text)}</p>"]
    if not blocks:
        parts.append("<p class='sf-none'>no frames</p>")
    for block in blocks:
        # the target in colour, its frame elements in displaCy's default grey
        colors = {block["spans"][0]["label"]: TARGET_COLOR}
        parts.append(
            displacy.render(block, style="span", manual=True, page=False, jupyter=False, options={"colors": colors})
        )
    parts.append(_doc_notes(doc) + "</div>")
    return "\n".join(parts)


def render(docs: Iterable[Doc], *, page: bool = True, max_frames: int = 0) -> str:
    """HTML of the docs' parses; `page`: a complete HTML page, else a fragment."""
    body = "\n<hr/>\n".join(render_doc(doc, max_frames) for doc in docs)
    if not page:
        return body
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>en_frames_trf parses</title>"
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:1150px} .sf-text{color:#555}</style></head>"
        f"<body>{body}</body></html>"
    )


def _esc(text: str) -> str:
    return html_lib.escape(text, quote=True)


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
