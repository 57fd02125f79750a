"""The mid-tuning sentence sample: a fixed, seeded sample of English sentences
from the raw text we have, never from any component's dev or test text.

Sources (train side only):
- `gum`: GUM documents of GDTB's train split (raw text; reddit documents have blanked text);
- `discogem`: DiscoGeM's train-split argument texts (Europarl, novels, Wikipedia);
- `semeval`: the English SemEval-2023 articles of the media framer's train split
  (corpus/media_frames/en_train.spacy, the project's fixed split);
- `framenet`: FrameNet 1.5's lexicographic exemplar sentences.
Excluded: every sentence of GDTB dev/test documents, DiscoGeM dev/test items, the media
framer's dev/test articles and FN1.5 dev/test, also as a global guard on the normalised
text of each sampled sentence (a train sentence identical to an excluded one is dropped).
Sentences: spaCy's sentencizer, 5..60 tokens, at least 3 alphabetic; deduplicated.
"""

import random
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Set, Tuple

import spacy
import srsly
from spacy.tokens import DocBin

from ..corpora.discourse import gdtb_split_docs, read_discogem

SOURCES = ("gum", "discogem", "semeval", "framenet")
MIN_TOKENS, MAX_TOKENS, MIN_ALPHA = 5, 60, 3


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


class Splitter:
    def __init__(self):
        self.nlp = spacy.blank("en")
        self.nlp.add_pipe("sentencizer")
        self.nlp.max_length = 5_000_000

    def sentences(self, texts: Iterable[str]) -> Iterator[str]:
        for doc in self.nlp.pipe(t for t in texts if t and t.strip()):
            for sent in doc.sents:
                n_alpha = sum(t.is_alpha for t in sent)
                if MIN_TOKENS <= len(sent) <= MAX_TOKENS and n_alpha >= MIN_ALPHA:
                    yield " ".join(sent.text.split())


def _docbin_texts(path: Path) -> List[str]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `spacy project run convert` / `convert-media-frames` first.")
    return [doc.text for doc in DocBin().from_disk(path).get_docs(spacy.blank("en").vocab)]


def source_texts(assets: Path, corpus: Path) -> Dict[str, Tuple[List[str], List[str]]]:
    """source -> (train texts, excluded texts)."""
    gdtb = assets / "discourse" / "gdtb"
    if not (gdtb / "splits.md").is_file():
        raise FileNotFoundError(f"GDTB not found at {gdtb}: run `spacy project run assets`.")
    splits = gdtb_split_docs(gdtb)
    raw = gdtb / "pdtb" / "raw"
    gum_train, gum_excluded = [], []
    for name, split in sorted(splits.items()):
        if "_reddit_" in name or not (raw / name).is_file():
            continue
        (gum_train if split == "train" else gum_excluded).append((raw / name).read_text(encoding="utf8"))
    discogem = assets / "discourse" / "discogem"
    dg = {split: read_discogem(discogem, split) for split in ("train", "dev", "test")}
    media = corpus / "media_frames"
    fn = corpus / "framenet15"
    return {
        "gum": (gum_train, gum_excluded),
        "discogem": (
            [t for r in dg["train"] for t in (r.arg1, r.arg2)],
            [t for s in ("dev", "test") for r in dg[s] for t in (r.arg1, r.arg2)],
        ),
        "semeval": (
            _docbin_texts(media / "en_train.spacy"),
            _docbin_texts(media / "en_dev.spacy") + _docbin_texts(media / "en_test.spacy"),
        ),
        "framenet": (
            _docbin_texts(fn / "exemplars.spacy"),
            _docbin_texts(fn / "dev.spacy") + _docbin_texts(fn / "test.spacy"),
        ),
    }


def build_sample(assets: Path, corpus: Path, size: int, seed: int = 0) -> Tuple[List[Dict[str, str]], Dict]:
    """The sample (records {"text", "source"}) and its counts per source."""
    splitter = Splitter()
    texts = source_texts(Path(assets), Path(corpus))
    excluded: Set[str] = set()
    for _, banned in texts.values():
        excluded.update(normalise(s) for s in splitter.sentences(banned))
        excluded.update(normalise(t) for t in banned)  # short texts (one sentence, e.g. FN) as they are
    pools: Dict[str, List[str]] = {}
    counts: Dict[str, Dict[str, int]] = {}
    seen: Set[str] = set()
    for source in SOURCES:
        kept, dropped = [], 0
        for sentence in splitter.sentences(texts[source][0]):
            key = normalise(sentence)
            if key in excluded:
                dropped += 1
            elif key not in seen:
                seen.add(key)
                kept.append(sentence)
        pools[source] = sorted(kept)
        counts[source] = {"available": len(kept), "excluded_sentences": dropped}
    rng = random.Random(seed)
    quota = _quotas({s: len(p) for s, p in pools.items()}, size)
    records = []
    for source in SOURCES:
        chosen = rng.sample(pools[source], quota[source])
        counts[source]["sampled"] = len(chosen)
        records.extend({"text": text, "source": source} for text in chosen)
    rng.shuffle(records)
    return records, {"seed": seed, "size": size, "total": len(records), "sources": counts}


def _quotas(available: Dict[str, int], size: int) -> Dict[str, int]:
    """Balanced across sources: an equal share each, a small source's leftover shared out."""
    quota = {s: 0 for s in available}
    left, open_sources = size, [s for s in available if available[s] > 0]
    while left > 0 and open_sources:
        share = max(1, left // len(open_sources))
        for s in list(open_sources):
            take = min(share, available[s] - quota[s], left)
            quota[s] += take
            left -= take
            if quota[s] >= available[s]:
                open_sources.remove(s)
            if left == 0:
                break
    return quota


def write_sample(out_dir: Path, records: List[Dict[str, str]], counts: Dict) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    srsly.write_jsonl(out_dir / "sentences.jsonl", records)
    srsly.write_json(out_dir / "counts.json", counts)
