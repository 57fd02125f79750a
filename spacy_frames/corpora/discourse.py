"""Discourse-relation corpora: GDTB (PDTB-3 over GUM) and DiscoGeM, as Docs and Examples.

Readers return `DiscourseRelation`s of every type (Implicit, Explicit, AltLex, EntRel,
...); `relation_doc` makes one Doc per relation, "Arg1 Arg2", with
`doc.spans["discourse_args"] = [Arg1, Arg2]` and the gold in `doc._.discourse_gold`:
{"id", "type", "senses" (full PDTB-3 paths), "connective" (the implicit connective,
or None), "soft" ({path: share} for DiscoGeM's crowd distributions, or None)}.

- GDTB standoff (`pdtb/gold/<doc>`, pipe-delimited PDTB-3 fields, character offsets
  into `pdtb/raw/<doc>`) is the source of the training corpora: it has the implicit
  connective and up to two senses. GDTB's DISRPT `.rels` files are read too (and
  written by `write_rels`) for the DISRPT scorer. Reddit documents, whose text is
  blanked in the release, are skipped.
- DiscoGeM: leaf labels ("arg2-as-detail") mapped to full paths, the split from
  DiscoGeMcorpus_datasplits.csv, crowd distributions where the release has them
  (the QADiscourse files' `majority_softlabel`, renormalised over PDTB senses; about 900
  items, whose distribution need not peak at the majority label). Items labelled "differentcon" or
  "norel" carry no sense and are left out.
"""

import csv
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin, Span, SpanGroup
from spacy.training import Example
from spacy.util import registry

from ..extensions import ARGS_KEY, install_extensions
from ..inventory.senses import SenseHierarchy
from .docbins import add_docs, docs_from
from .readers import require_corpus

SPLITS = ("train", "dev", "test")
# PDTB-3 pipe format, 0-based fields used here
F_TYPE, F_CONN1, F_SCLASS1A, F_SCLASS1B, F_CONN2, F_SCLASS2A, F_SCLASS2B, F_ARG1, F_ARG2 = (
    0,
    7,
    8,
    9,
    10,
    11,
    12,
    14,
    20,
)


@dataclass
class DiscourseRelation:
    id: str
    type: str  # "Implicit", "Explicit", "AltLex", "EntRel", ... as the corpus writes it
    arg1: str
    arg2: str
    senses: List[str]  # full PDTB-3 paths, at most two
    connective: Optional[str] = None
    soft: Optional[Dict[str, float]] = None
    source: str = ""
    meta: Dict[str, str] = field(default_factory=dict)

    @property
    def implicit(self) -> bool:
        return self.type.strip().lower() == "implicit"


# -- GDTB -------------------------------------------------------------------------------------


def gdtb_split_docs(root: Path) -> Dict[str, str]:
    """document name -> split, from GDTB's splits.md (test2 is not part of GDTB)."""
    split, out = None, {}
    for line in (Path(root) / "splits.md").read_text(encoding="utf8").splitlines():
        line = line.strip()
        if line.startswith("## "):
            split = line[3:].strip()
        elif line.startswith("* ") and split in SPLITS:
            out[line[2:].strip()] = split
    if not out:
        raise ValueError(f"No document split found in {Path(root) / 'splits.md'}")
    return out


def _span_text(raw: str, spans: str) -> str:
    """The text of a PDTB span list ("394..436;450..460"), pieces joined by a space."""
    pieces = []
    for part in spans.split(";"):
        start, end = part.split("..")
        pieces.append(raw[int(start) : int(end)].strip())
    return " ".join(p for p in pieces if p)


def read_gdtb(
    root, split: str, hierarchy: Optional[SenseHierarchy] = None, skip_reddit: bool = True
) -> List[DiscourseRelation]:
    """The relations of one GDTB split from the PDTB-3 standoff files (every type)."""
    root = Path(root)
    if split not in SPLITS:
        raise ValueError(f"unknown GDTB split {split!r}; choose from {SPLITS}")
    hierarchy = hierarchy or SenseHierarchy()
    gold_dir, raw_dir = root / "pdtb" / "gold", root / "pdtb" / "raw"
    if not gold_dir.is_dir():
        raise FileNotFoundError(f"GDTB standoff not found at {gold_dir}: run `spacy project run assets`.")
    relations = []
    for name, doc_split in sorted(gdtb_split_docs(root).items()):
        if doc_split != split or (skip_reddit and "_reddit_" in name):
            continue
        raw = (raw_dir / name).read_text(encoding="utf8")
        for n, line in enumerate((gold_dir / name).read_text(encoding="utf8").splitlines()):
            fields = line.split("|")
            if len(fields) < F_ARG2 + 1 or not fields[F_ARG1] or not fields[F_ARG2]:
                continue
            senses = []
            for f in (F_SCLASS1A, F_SCLASS1B, F_SCLASS2A, F_SCLASS2B):
                sense = hierarchy.normalize(fields[f]) if fields[f].strip() else None
                if sense and sense not in senses:
                    senses.append(sense)
            connective = fields[F_CONN1].strip() if fields[F_TYPE] == "Implicit" else None
            relations.append(
                DiscourseRelation(
                    id=f"{name}:{n}",
                    type=fields[F_TYPE],
                    arg1=_span_text(raw, fields[F_ARG1]),
                    arg2=_span_text(raw, fields[F_ARG2]),
                    senses=senses,
                    connective=connective if connective not in (None, "", "_") else None,
                    source="gdtb",
                    meta={"doc": name, "split": split, "arg1_chars": fields[F_ARG1], "arg2_chars": fields[F_ARG2]},
                )
            )
    return relations


def char_extent(spans: str) -> Tuple[int, int]:
    """The [start, end) characters from the first to the last piece of a PDTB span list."""
    bounds = [int(x) for part in spans.split(";") for x in part.split("..")]
    return min(bounds), max(bounds)


def gdtb_documents(root, split: str, skip_reddit: bool = True) -> Dict[str, Tuple[str, List[DiscourseRelation]]]:
    """Each document of a GDTB split: its raw text and its implicit relations (their
    arguments' characters in `meta`: `arg1_chars`, `arg2_chars`)."""
    raw_dir = Path(root) / "pdtb" / "raw"
    out: Dict[str, Tuple[str, List[DiscourseRelation]]] = {}
    for rel in read_gdtb(root, split, skip_reddit=skip_reddit):
        name = rel.meta["doc"]
        if name not in out:
            out[name] = ((raw_dir / name).read_text(encoding="utf8"), [])
        if rel.implicit and rel.senses:
            out[name][1].append(rel)
    return out


def read_rels(path, hierarchy: Optional[SenseHierarchy] = None, skip_reddit: bool = True) -> List[DiscourseRelation]:
    """Relations of a DISRPT `.rels` file, Arg1 = unit1 and Arg2 = unit2 (text order).

    That is PDTB's Arg1/Arg2 for implicit relations (Arg1 always comes first). `dir` is
    DISRPT's relation direction, which follows the sense (e.g. Arg1-as-denier), not the
    argument order; it is kept in `meta` for `write_rels`. For an explicit relation whose
    connective clause comes first ("While X, Y"), text order puts PDTB's Arg2 first:
    read the standoff (`read_gdtb`) where argument roles matter."""
    hierarchy = hierarchy or SenseHierarchy()
    relations = []
    with open(path, encoding="utf8", newline="") as file_:
        for n, row in enumerate(csv.DictReader(file_, delimiter="\t", quoting=csv.QUOTE_NONE)):
            if skip_reddit and "_reddit_" in row["doc"]:
                continue
            arg1, arg2 = row["unit1_txt"], row["unit2_txt"]
            sense = hierarchy.normalize(row["orig_label"])
            relations.append(
                DiscourseRelation(
                    id=f"{row['doc']}:{n}",
                    type=row["rel_type"].strip().capitalize().replace("Altlex", "AltLex").replace("Entrel", "EntRel"),
                    arg1=arg1,
                    arg2=arg2,
                    senses=[sense] if sense else [],
                    source="rels",
                    meta={
                        k: row[k]
                        for k in (
                            "doc",
                            "unit1_toks",
                            "unit2_toks",
                            "s1_toks",
                            "s2_toks",
                            "unit1_sent",
                            "unit2_sent",
                            "dir",
                            "rel_type",
                            "orig_label",
                            "label",
                        )
                    },
                )
            )
    return relations


def write_rels(path, relations: Sequence[DiscourseRelation], predicted: Sequence[str]) -> None:
    """A DISRPT `.rels` file of `relations` (read with `read_rels`) whose label columns
    hold the `predicted` senses, for the DISRPT scorer (which compares `label`)."""
    if len(relations) != len(predicted):
        raise ValueError(f"write_rels: {len(relations)} relations, {len(predicted)} predictions")
    columns = [
        "doc",
        "unit1_toks",
        "unit2_toks",
        "unit1_txt",
        "unit2_txt",
        "s1_toks",
        "s2_toks",
        "unit1_sent",
        "unit2_sent",
        "dir",
        "rel_type",
        "orig_label",
        "label",
    ]
    with open(path, "w", encoding="utf8", newline="") as file_:
        file_.write("\t".join(columns) + "\n")
        for rel, sense in zip(relations, predicted):
            if not rel.meta or "unit1_toks" not in rel.meta:
                raise ValueError(f"write_rels: relation {rel.id} was not read from a .rels file")
            row = dict(
                rel.meta, unit1_txt=rel.arg1, unit2_txt=rel.arg2, orig_label=sense.lower(), label=_disrpt_label(sense)
            )
            file_.write("\t".join(row[c] for c in columns) + "\n")


def _disrpt_label(sense: str) -> str:
    # DISRPT's `label` is the level-2 sense for PDTB-style corpora, lower-cased
    return ".".join(sense.split(".")[:2]).lower()


# -- DiscoGeM ---------------------------------------------------------------------------------


def _soft_labels(text: str, hierarchy: SenseHierarchy) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for item in text.split(";"):
        if ":" not in item:
            continue
        label, value = item.rsplit(":", 1)
        share = float(value)
        sense = hierarchy.normalize(label)
        if share > 0 and sense:
            out[sense] = out.get(sense, 0.0) + share
    # shares of "differentcon" / "norel" are dropped: renormalise over the senses
    total = sum(out.values())
    return {k: v / total for k, v in out.items()} if total > 0 else {}


def read_discogem(root, split: str, hierarchy: Optional[SenseHierarchy] = None) -> List[DiscourseRelation]:
    """The implicit relations of one DiscoGeM 1.0 split (leaf labels as full paths)."""
    root = Path(root)
    if split not in SPLITS:
        raise ValueError(f"unknown DiscoGeM split {split!r}; choose from {SPLITS}")
    hierarchy = hierarchy or SenseHierarchy()
    annotations = root / "DiscoGeMcorpus_annotations_nonwide.noPDTB.csv"
    if not annotations.is_file():
        raise FileNotFoundError(f"DiscoGeM not found at {annotations}: run `spacy project run assets`.")
    with open(root / "DiscoGeMcorpus_datasplits.csv", encoding="utf-8-sig", newline="") as file_:
        splits = {row["itemid"]: row["split"] for row in csv.DictReader(file_)}
    soft: Dict[str, Dict[str, float]] = {}
    for qa in sorted(root.glob("QADiscourse_*_qa_wide.tsv")):
        with open(qa, encoding="utf8", newline="") as file_:
            for row in csv.DictReader(file_, delimiter="\t"):
                dist = row.get("majority_softlabel") or row.get("majority_softlabel_qa")
                if dist:
                    soft[row["itemid"]] = _soft_labels(dist, hierarchy)
    relations = []
    with open(annotations, encoding="utf-8-sig", newline="") as file_:
        for row in csv.DictReader(file_):
            item = row["Itemid"]
            if splits.get(item) != split:
                continue
            sense = hierarchy.normalize(row["SemClass"])
            if sense is None:
                continue
            relations.append(
                DiscourseRelation(
                    id=item,
                    type="Implicit",
                    arg1=" ".join(row["Arg1_RawText"].split()),
                    arg2=" ".join(row["Arg2_RawText"].split()),
                    senses=[sense],
                    soft=soft.get(item) or None,
                    source="discogem",
                    meta={"genre": row["Genre"], "split": split},
                )
            )
    return relations


# -- Docs and Examples ------------------------------------------------------------------------


def relation_doc(nlp: Language, rel: DiscourseRelation, connective: Optional[str] = None, separator: str = "") -> Doc:
    """ "Arg1 Arg2" as a Doc with the two argument spans and the gold; `connective`
    (e.g. the implicit one) is inserted at the start of Arg2 and `separator` (the
    encoder's separator token, "[SEP]" for BERT-style encoders: the pair input
    "[CLS] Arg1 [SEP] Arg2 [SEP]" of Long & Webber) between the arguments, both
    outside the argument spans. The separator is one token, as discourse_sense puts it
    between the arguments of the pairs it is given at prediction."""
    arg1, arg2 = rel.arg1.strip(), rel.arg2.strip()
    if not arg1 or not arg2:
        raise ValueError(f"relation {rel.id}: an empty argument")
    parts = [nlp.make_doc(arg1)]
    if separator and separator.strip():
        parts.append(Doc(nlp.vocab, words=[separator.strip()], spaces=[True]))
    if connective and connective.strip():
        parts.append(nlp.make_doc(connective.strip()))
    parts.append(nlp.make_doc(arg2))
    if any(not len(part) for part in parts):
        raise ValueError(f"relation {rel.id}: an argument without tokens")
    doc = Doc.from_docs(parts, ensure_whitespace=True)
    if doc[-1].whitespace_:  # from_docs leaves the last doc's trailing space as it was
        doc = Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc][:-1] + [False])
    start2 = len(doc) - len(parts[-1])
    spans = [Span(doc, 0, len(parts[0]), label="Arg1"), Span(doc, start2, len(doc), label="Arg2")]
    install_extensions()
    doc.spans[ARGS_KEY] = SpanGroup(doc, name=ARGS_KEY, spans=spans)
    doc._.discourse_gold = {
        "id": rel.id,
        "type": rel.type,
        "senses": list(rel.senses),
        "connective": rel.connective,
        "soft": dict(rel.soft) if rel.soft else None,
        "augmented": bool(connective),
    }
    return doc


def relations_to_docbin(nlp: Language, relations: Iterable[DiscourseRelation]) -> DocBin:
    """The converted corpus: one Doc per relation ("Arg1 Arg2", no separator: the reader
    adds the component's separator, so one corpus serves every encoder)."""
    return add_docs(DocBin(store_user_data=True), (relation_doc(nlp, rel) for rel in relations))


def with_separator(nlp: Language, reference: Doc, separator: str) -> Doc:
    """A converted relation Doc ("Arg1 Arg2") rebuilt with `separator` between its
    arguments (the same doc when the separator is empty)."""
    if not separator:
        return reference
    gold = reference._.discourse_gold
    args = reference.spans[ARGS_KEY]
    rel = DiscourseRelation(
        gold["id"],
        gold["type"],
        args[0].text,
        args[1].text,
        list(gold["senses"]),
        gold.get("connective"),
        gold.get("soft"),
    )
    doc = relation_doc(nlp, rel, separator=separator)
    doc._.discourse_gold = dict(gold)
    return doc


def input_doc(nlp: Language, reference: Doc) -> Doc:
    """The predicted side of an Example: the same tokens with only the two argument spans."""
    predicted = Doc(nlp.vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference])
    spans = [
        predicted.char_span(s.start_char, s.end_char, label=s.label_, alignment_mode="expand")
        for s in reference.spans[ARGS_KEY]
    ]
    predicted.spans[ARGS_KEY] = SpanGroup(predicted, name=ARGS_KEY, spans=[s for s in spans if s is not None])
    return predicted


@registry.readers("spacy-frames.DiscourseCorpus.v1")
def create_discourse_reader(
    paths: List[str],
    types: List[str] = ["Implicit"],  # noqa: B006 (config default, never mutated)
    augment: bool = False,
    split_senses: bool = False,
    shuffle: bool = False,
    limit: int = 0,
    seed: int = 0,
    separator: str = "",
) -> Callable[[Language], Iterable[Example]]:
    """Discourse relations (corpus/discourse/*.spacy) as Examples whose predicted doc
    carries the two argument spans.

    types: relation types kept ("Implicit"; [] keeps all).
    augment: add a second copy of each relation with its implicit connective inserted
        at the start of Arg2 (where the annotation has one), right after the original,
        so both tend to share a batch.
    split_senses: a relation with two senses becomes two examples, one sense each
        (training); otherwise an example keeps all its gold senses (evaluation: a
        prediction matching either is correct).
    shuffle: shuffle the relations each epoch (seeded); limit: the first `limit` (0 = all).
    separator: text put between the arguments (the encoder's separator token, e.g.
        "[SEP]"; "" = none); it must be the component's `separator`, which puts it
        between the arguments of the pairs it is given at prediction.
    """
    return DiscourseCorpus(paths, types, augment, split_senses, shuffle, limit, seed, separator)


class DiscourseCorpus:
    def __init__(self, paths, types, augment, split_senses, shuffle, limit, seed, separator=""):
        if isinstance(paths, (str, Path)):
            paths = [paths]
        if not paths:
            raise ValueError("DiscourseCorpus: no corpus files given.")
        self.paths = [require_corpus(p, "convert-discourse") for p in paths]
        self.types = {t.lower() for t in types}
        self.augment, self.split_senses, self.shuffle, self.limit = augment, split_senses, shuffle, limit
        self.rng = random.Random(seed)
        self.separator = separator
        self._separated = False
        self._docs: Optional[List[Doc]] = None

    def load(self, vocab) -> List[Doc]:
        if self._docs is None:
            install_extensions()
            docs = [doc for path in self.paths for doc in docs_from(DocBin().from_disk(path), vocab)]
            docs = [
                d
                for d in docs
                if d._.discourse_gold and (not self.types or d._.discourse_gold["type"].lower() in self.types)
            ]
            if self.limit:
                docs = docs[: self.limit]
            if not docs:
                raise ValueError(
                    f"Discourse corpus {[str(p) for p in self.paths]} holds no relations of types {sorted(self.types)}."
                )
            self._docs = docs
        return self._docs

    def __call__(self, nlp: Language) -> Iterator[Example]:
        docs = list(self.load(nlp.vocab))
        if self.separator and not self._separated:
            self._docs = docs = [with_separator(nlp, d, self.separator) for d in docs]
            self._separated = True
        if self.shuffle:
            self.rng.shuffle(docs)
        for reference in docs:
            for ref in self._variants(nlp, reference):
                yield Example(input_doc(nlp, ref), ref)

    def _variants(self, nlp: Language, reference: Doc) -> Iterator[Doc]:
        gold = reference._.discourse_gold
        senses = gold["senses"] if self.split_senses and len(gold["senses"]) > 1 else [None]
        for sense in senses:
            docs = [reference]
            if self.augment and gold.get("connective"):
                args = reference.spans[ARGS_KEY]
                rel = DiscourseRelation(
                    gold["id"],
                    gold["type"],
                    args[0].text,
                    args[1].text,
                    list(gold["senses"]),
                    gold["connective"],
                    gold.get("soft"),
                )
                docs.append(relation_doc(nlp, rel, connective=gold["connective"], separator=self.separator))
            for doc in docs:
                if sense is not None:
                    doc = doc.copy()
                    doc._.discourse_gold = dict(doc._.discourse_gold, senses=[sense])
                yield doc


def corpus_counts(relations: Sequence[DiscourseRelation]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for rel in relations:
        counts[rel.type] = counts.get(rel.type, 0) + 1
    return dict(sorted(counts.items()))


def sense_counts(relations: Sequence[DiscourseRelation], hierarchy: SenseHierarchy, level: int = 2) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for rel in relations:
        for sense in rel.senses:
            key = ".".join(sense.split(".")[:level])
            counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def split_relations(
    relations: Sequence[DiscourseRelation], implicit_only: bool = True
) -> Tuple[List[DiscourseRelation], int]:
    """The relations kept for training/evaluation (implicit, with a sense) and how many were dropped."""
    kept = [r for r in relations if r.senses and (r.implicit or not implicit_only)]
    return kept, len(relations) - len(kept)
