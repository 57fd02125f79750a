"""The output formats on FrameNet 1.5 test, with a trained pipeline:

    python scripts/check_formats.py training/frames_trf corpus/framenet15/test.spacy metrics/formats.json \
        --frame-parser training/frames_final

1. `annotate` of every test text (raw text, the whole pipeline) to JSONL: every record is
   checked against the shipped JSON Schema (spacy_frames/schemas/record.v1.schema.json).
2. The CoNLL export: frame_elements of `--frame-parser` (default: the model; give the
   pipeline `evaluate-frame-elements` scores to compare with its number) on the gold
   frames, written with `annotate`'s CoNLL writer, read back with the reader of
   open-sesame's files and scored with open-sesame's measure; beside it the measure of the
   docs themselves (what `evaluate-frame-elements` prints as fn15_test fe_os_f). The file
   holds tokens, not the text's spacing, so the read-back FEs are put on the exported
   docs by token position before scoring.
3. The export through `spacy-frames convert conll`: the same targets, frames and FEs.
"""

import itertools
import json
import tempfile
from pathlib import Path
from typing import Dict, List

import jsonschema
import spacy
import srsly
import typer
from spacy.tokens import Doc, DocBin, SpanGroup
from spacy.training import Example

from spacy_frames.corpora.convert import convert_conll
from spacy_frames.corpora.docbins import docs_from
from spacy_frames.corpora.framenet_sentences import iter_open_sesame_sentences, sentence_to_doc
from spacy_frames.extensions import FE_KEY, TARGETS_KEY, install_extensions, make_fe_span
from spacy_frames.scoring.frame_elements import score_frame_elements_open_sesame
from spacy_frames.scoring.frame_elements_eval import fe_examples, load_frame_parser
from spacy_frames.tools.annotate_corpus import annotate_corpus
from spacy_frames.tools.conll import doc_to_conll, n_sentences
from spacy_frames.tools.records import record_schema


def validate_records(model: str, corpus: Path, workdir: Path) -> Dict:
    nlp = spacy.load(model)
    texts = [doc.text for doc in DocBin().from_disk(corpus).get_docs(nlp.vocab)]
    source, out = workdir / "texts.jsonl", workdir / "records.jsonl"
    source.write_text("".join(json.dumps({"id": f"t{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    annotate_corpus(nlp, str(source), out, batch_size=32, progress=False)
    validator = jsonschema.Draft202012Validator(record_schema())
    records = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines() if line]
    invalid = [r["id"] for r in records if any(True for _ in validator.iter_errors(r))]
    return {
        "texts": len(texts),
        "records": len(records),
        "invalid_records": len(invalid),
        "first_invalid": invalid[:5],
        "frames": sum(len(r["frames"]) for r in records),
        "frame_elements": sum(len(f["frame_elements"]) for r in records for f in r["frames"]),
    }


def exported_sentences(doc: Doc) -> List:
    """The sentences `doc_to_conll` writes a block for, in order: those with a frame."""
    sentences = list(doc.sents) if doc.has_annotation("SENT_START") else [doc[:]]
    return [s for s in sentences if any(s.start <= f.start < s.end for f in doc._.frames)]


def on_exported_tokens(exported: Doc, read: List[Doc]) -> Doc:
    """A copy of `exported` whose FEs are those read back for its sentences (`read`, one doc
    per exported sentence), put on its tokens by position (space tokens are not written)."""
    copy = exported.copy()
    frames = {(t.start, t.end, t.label_): t for t in copy._.frames}
    fes = []
    for sentence, back in zip(exported_sentences(exported), read):
        tokens = [t.i for t in sentence if t.text.strip()]
        if len(tokens) != len(back):
            raise ValueError(f"a sentence read back has {len(back)} tokens, the exported one {len(tokens)}")
        for target in back.spans.get(TARGETS_KEY, []):
            frame = frames[(tokens[target.start], tokens[target.end - 1] + 1, target.label_)]
            fes += [
                make_fe_span(frame, tokens[e.start], tokens[e.end - 1] + 1, e.label_) for e in target._.frame_elements
            ]
    copy.spans[FE_KEY] = SpanGroup(copy, name=FE_KEY, spans=fes)
    return copy


def conll_round_trip(model: str, corpus: Path, workdir: Path) -> Dict:
    nlp = load_frame_parser(model)
    examples = fe_examples(nlp, corpus)
    inventory = nlp.get_pipe("frame_elements").inventory
    with nlp.select_pipes(disable=["frame_identifier"]):
        docs = list(nlp.pipe((eg.predicted for eg in examples), batch_size=32))
    parsed = [(doc, eg) for doc, eg in zip(docs, examples) if len(doc._.frames)]
    path = workdir / "test.conll"
    firsts = [0, *itertools.accumulate(n_sentences(doc) for doc, _ in parsed)]
    path.write_text("".join(doc_to_conll(doc, n) for (doc, _), n in zip(parsed, firsts)), encoding="utf8")
    read = [sentence_to_doc(nlp.vocab, s) for s in iter_open_sesame_sentences(path)]
    counts = [len(exported_sentences(doc)) for doc, _ in parsed]
    if len(read) != sum(counts):
        raise ValueError(f"{len(read)} sentences read back from {sum(counts)} exported")
    direct = score_frame_elements_open_sesame(
        [Example(d, eg.reference) for d, eg in zip(docs, examples)], inventory=inventory
    )
    starts = [0, *itertools.accumulate(counts)][:-1]
    rebuilt = [
        Example(on_exported_tokens(doc, read[first : first + n]), eg.reference)
        for (doc, eg), first, n in zip(parsed, starts, counts)
    ]
    rebuilt += [Example(d, eg.reference) for d, eg in zip(docs, examples) if not len(d._.frames)]
    via = score_frame_elements_open_sesame(rebuilt, inventory=inventory)
    convert_conll(path, workdir / "test.spacy")
    back = docs_from(DocBin().from_disk(workdir / "test.spacy"), nlp.vocab)
    same = sum(
        _view(b, b.spans.get(TARGETS_KEY, [])) == _view(r, r.spans.get(TARGETS_KEY, [])) for b, r in zip(back, read)
    )
    return {
        "docs_exported": len(parsed),
        "sentences_exported": len(read),
        "blocks": path.read_text(encoding="utf8").count("\n\n"),
        "fe_os_f_direct": _pct(direct["fe_os_f"]),
        "fe_os_f_read_from_conll": _pct(via["fe_os_f"]),
        "fe_os_p_read_from_conll": _pct(via["fe_os_p"]),
        "fe_os_r_read_from_conll": _pct(via["fe_os_r"]),
        "converted_sentences": len(back),
        "converted_sentences_equal": same,
    }


def _view(doc: Doc, targets) -> List:
    return [(t.start, t.end, t.label_, sorted((e.start, e.end, e.label_) for e in t._.frame_elements)) for t in targets]


def _pct(value):
    return None if value is None else round(100 * value, 2)


def main(
    model: str,
    corpus: Path,
    output: Path,
    frame_parser: str = typer.Option(None, "--frame-parser", help="Pipeline whose FEs are exported (default: MODEL)"),
):
    install_extensions()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        result = {"model": model, "corpus": str(corpus), "frame_parser": frame_parser or model}
        result["records"] = validate_records(model, corpus, workdir)
        result["conll"] = conll_round_trip(frame_parser or model, corpus, workdir)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(srsly.json_dumps(result, indent=2))


if __name__ == "__main__":
    typer.run(main)
