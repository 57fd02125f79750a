"""The JSON record of an annotated document, the same from one process, `n_process`
processes or a Dask cluster: scores are rounded to 4 decimals. Every record names the
JSON Schema it follows (`"schema"`: :data:`RECORD_SCHEMA`); :func:`record_schema` returns
that schema (spacy_frames/schemas/record.v1.schema.json)."""

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Dict, Optional

from spacy.tokens import Doc

RECORD_SCHEMA = "spacy-frames/record/v1"
SCHEMA_FILE = "record.v1.schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return resources.files("spacy_frames").joinpath("schemas", SCHEMA_FILE).read_text(encoding="utf8")


def record_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the records `doc_to_record` returns (a fresh copy)."""
    return json.loads(_schema_text())


def _score(value) -> Optional[float]:
    return None if value is None else round(float(value), 4)


def doc_to_record(doc: Doc, doc_id: str) -> Dict:
    """The annotation record of one document; every offset indexes `text` by characters."""
    frames = []
    for span in doc._.frames:
        ranking = [[name, _score(score)] for name, score in (span._.frame_ranking or [])]
        frames.append(
            {
                "start": span.start_char,
                "end": span.end_char,
                "text": span.text,
                "frame": span.label_ or None,
                "lexical_unit": span._.lexical_unit,
                "score": ranking[0][1] if ranking and ranking[0][0] == span.label_ else None,
                "ranking": ranking,
                "induced_frame": span._.induced_frame,
                "induced_frame_label": span._.induced_frame_label,
                "frame_elements": [
                    {"start": fe.start_char, "end": fe.end_char, "text": fe.text, "label": fe.label_}
                    for fe in span._.frame_elements
                ],
            }
        )
    relations = [
        {key: (_score(value) if key == "score" else value) for key, value in relation.items()}
        for relation in doc._.discourse_relations
    ]
    return {
        "schema": RECORD_SCHEMA,
        "id": doc_id,
        "text": doc.text,
        "frames": frames,
        "discourse_relations": relations,
        "media_frames": list(doc._.media_frames),
        "cats": {label: _score(score) for label, score in doc.cats.items()},
    }


def record_line(doc: Doc, doc_id: str) -> str:
    return json.dumps(doc_to_record(doc, doc_id), ensure_ascii=False) + "\n"
