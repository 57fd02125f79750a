"""Annotate a whole corpus: documents in (tools/corpus_io.py), one record per document out.

Output is `.jsonl` (one record per input document, in input order, written as the
pipeline returns them, so a long run can be continued with `resume`), `.spacy` (a
DocBin keeping every extension, written when the run ends or is interrupted) or `conll`
(open-sesame's CoNLL, one block per target: tools/conll.py). The same
records come from one process, `n_process` processes, or a Dask cluster
(tools/dask_annotate.py): scores are rounded to 4 decimals, so the files are
byte-identical however they were computed.
"""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc, DocBin

from ..extensions import install_extensions
from .corpus_io import BadInputError, InputDocument, count_documents, read_documents
from .records import record_line

OUTPUT_SUFFIXES = (".jsonl", ".spacy")
OUTPUT_FORMATS = ("jsonl", "spacy", "conll")


@dataclass
class AnnotateSummary:
    documents: int = 0  # records written by this run
    resumed_after: int = 0  # records already in OUTPUT when the run started
    skipped: List[Dict] = field(default_factory=list)


class JsonlOutput:
    """Records appended line by line; on resume, what an interrupted run left is cut back
    to its last complete record (never a duplicate, never a half-written line)."""

    def __init__(self, path: Path, resume: bool):
        self.path = path
        self.done = self._complete_prefix() if resume and path.exists() else 0
        if not resume or not path.exists():
            path.write_text("")
        self.handle = path.open("a", encoding="utf-8", buffering=1)

    def _complete_prefix(self) -> int:
        raw = self.path.read_bytes()
        count, keep = 0, 0
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                json.loads(line)
            except ValueError:
                break
            count, keep = count + 1, keep + len(line)
        if keep < len(raw):
            with self.path.open("r+b") as handle:
                handle.truncate(keep)
        return count

    def write(self, doc: Doc, doc_id: str, line: Optional[str] = None) -> None:
        self.handle.write(line if line is not None else record_line(doc, doc_id))

    def close(self) -> None:
        self.handle.close()


class DocBinOutput:
    """Docs with every extension (user data) kept; written atomically on close."""

    def __init__(self, path: Path, resume: bool):
        self.path = path
        self.docs = DocBin(store_user_data=True)
        if resume and path.exists():
            self.docs.merge(DocBin(store_user_data=True).from_disk(path))
        self.done = len(self.docs)

    def write(self, doc: Doc, doc_id: str, line: Optional[str] = None) -> None:
        doc.user_data["annotate_id"] = doc_id
        self.docs.add(doc)

    def close(self) -> None:
        partial = self.path.with_name(self.path.name + ".partial")
        self.docs.to_disk(partial)
        partial.replace(self.path)


class ConllOutput:
    """open-sesame CoNLL blocks (tools/conll.py), written as the pipeline returns the docs."""

    def __init__(self, path: Path, resume: bool):
        if resume:
            raise ValueError(f"--resume cannot continue CoNLL output ({path}): annotate again, or to .jsonl")
        self.path, self.done, self.sentences = path, 0, 0
        self.handle = path.open("w", encoding="utf-8")

    def write(self, doc: Doc, doc_id: str, line: Optional[str] = None) -> None:
        from .conll import doc_to_conll, n_sentences

        self.handle.write(doc_to_conll(doc, self.sentences))
        self.sentences += n_sentences(doc)

    def close(self) -> None:
        self.handle.close()


def resolve_output_format(path: Path, fmt: Optional[str] = None) -> str:
    """`fmt` when given (jsonl, spacy, conll), else the one the suffix of `path` names."""
    if fmt is not None:
        if fmt not in OUTPUT_FORMATS:
            raise ValueError(f"Unknown output format {fmt!r}: expected one of {', '.join(OUTPUT_FORMATS)}")
        return fmt
    suffix = path.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES + (".conll",):
        raise ValueError(
            f"Unknown output format {suffix or '(no suffix)'} of {path}: expected .jsonl or .spacy (records) or .conll (CoNLL)"
        )
    return suffix[1:]


def open_output(path: Path, resume: bool, fmt: Optional[str] = None):
    writer = {"jsonl": JsonlOutput, "spacy": DocBinOutput, "conll": ConllOutput}[resolve_output_format(path, fmt)]
    path.parent.mkdir(parents=True, exist_ok=True)
    return writer(path, resume)


def skipped_path(output: Path) -> Path:
    return output.with_name(output.name + ".skipped.jsonl")


class PendingDocuments:
    """The readable documents after the first `done` ones, in order. An unreadable one is
    passed to `on_skip` (every one from the start, so a resumed run logs exactly what an
    uninterrupted one would) or, without skip_bad, ends the stream and is kept in
    `stopped_at`: the caller writes everything before it, then raises."""

    def __init__(self, documents: Iterable[InputDocument], done: int, skip_bad: bool, on_skip: Callable):
        self.documents, self.done, self.skip_bad, self.on_skip = documents, done, skip_bad, on_skip
        self.stopped_at: Optional[InputDocument] = None

    def __iter__(self) -> Iterator[InputDocument]:
        readable = 0
        for document in self.documents:
            if document.error is not None:
                if not self.skip_bad:
                    self.stopped_at = document
                    return
                self.on_skip(document)
                continue
            if readable >= self.done:
                yield document
            readable += 1


def annotate_corpus(
    nlp: Language,
    input_path: str,
    output: Path,
    *,
    batch_size: int = 64,
    n_process: int = 1,
    resume: bool = False,
    skip_bad: bool = False,
    progress: bool = True,
    dask: Optional[str] = None,
    model: Optional[str] = None,
    exclude: Sequence[str] = (),
    reader_options: Optional[Dict] = None,
    output_format: Optional[str] = None,
) -> AnnotateSummary:
    """Annotate every document of `input_path` into `output` (see the module docstring).
    With `dask` (`local:N` or a scheduler address), partitions run on Dask workers that
    each load `model` (with `exclude`) once; `nlp` is then not used for annotation.
    `output_format` (jsonl, spacy, conll) overrides the one the suffix of `output` names."""
    from tqdm import tqdm

    install_extensions()
    output = Path(output)
    documents = read_documents(input_path, **(reader_options or {}))
    total = count_documents(input_path)
    if dask is not None and resolve_output_format(output, output_format) != "jsonl":
        raise ValueError(f"--dask writes .jsonl records (got {output}); annotate to .jsonl, or drop --dask for .spacy")
    writer = open_output(output, resume, output_format)
    summary = AnnotateSummary(resumed_after=writer.done)
    skipped_log = skipped_path(output)
    if skip_bad or skipped_log.exists():
        skipped_log.write_text("")

    def on_skip(document: InputDocument) -> None:
        entry = {"index": document.index, "id": document.id, "source": document.source, "reason": document.error}
        summary.skipped.append(entry)
        with skipped_log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
        bar.update(1)

    bar = tqdm(total=total, unit="doc", desc="annotate", file=sys.stderr, disable=not progress, initial=0)
    try:
        pending = PendingDocuments(documents, writer.done, skip_bad, on_skip)
        if writer.done:
            bar.update(writer.done)
        if dask is not None:
            from .dask_annotate import annotate_on_dask

            for document, line in annotate_on_dask(dask, model, exclude, pending, batch_size):
                writer.write(None, document.id, line)
                summary.documents += 1
                bar.update(1)
        else:
            stream = ((document.text, document) for document in pending)
            for doc, document in nlp.pipe(stream, as_tuples=True, batch_size=batch_size, n_process=n_process):
                writer.write(doc, document.id)
                summary.documents += 1
                bar.update(1)
    finally:
        bar.close()
        writer.close()
    if pending.stopped_at is not None:
        raise BadInputError(pending.stopped_at)
    return summary
