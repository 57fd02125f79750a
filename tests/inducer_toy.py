"""Toy frame-induction instances (one verb target per doc) for the frame_inducer tests."""

from spacy.tokens import Doc, DocBin, SpanGroup

from spacy_frames.extensions import install_extensions

# (sentence, index of the target word, frame, LU)
INSTANCES = [
    ("She gave him a book .", 1, "Giving", "give.v"),
    ("They gave us the keys .", 1, "Giving", "give.v"),
    ("He handed me a letter .", 1, "Giving", "hand.v"),
    ("She handed him the bag .", 1, "Giving", "hand.v"),
    ("We walked to the station .", 1, "Self_motion", "walk.v"),
    ("They walked home slowly .", 1, "Self_motion", "walk.v"),
    ("He ran to the park .", 1, "Self_motion", "run.v"),
    ("She ran across the road .", 1, "Self_motion", "run.v"),
    ("Prices rose sharply today .", 1, "Change_position_on_a_scale", "rise.v"),
    ("Taxes rose again this year .", 1, "Change_position_on_a_scale", "rise.v"),
    ("Sales fell by ten percent .", 1, "Change_position_on_a_scale", "fall.v"),
    ("Profits fell last month .", 1, "Change_position_on_a_scale", "fall.v"),
    ("He runs a small company .", 1, "Leadership", "run.v"),
    ("She runs the local bakery .", 1, "Leadership", "run.v"),
    ("They managed the old hotel .", 1, "Leadership", "manage.v"),
    ("We managed a big team .", 1, "Leadership", "manage.v"),
]
TAGS = {
    "gave": "VBD",
    "handed": "VBD",
    "walked": "VBD",
    "ran": "VBD",
    "rose": "VBD",
    "fell": "VBD",
    "runs": "VBZ",
    "managed": "VBD",
}


def instance_doc(vocab, sentence: str, index: int, frame: str, lu: str) -> Doc:
    install_extensions()
    words = sentence.split()
    tags = [TAGS.get(w, "NN") if i == index else ("." if w == "." else "NN") for i, w in enumerate(words)]
    doc = Doc(vocab, words=words, tags=tags)
    span = doc[index : index + 1]
    span.label_ = frame
    span._.lexical_unit = lu
    doc.spans["targets"] = SpanGroup(doc, name="targets", spans=[span])
    return doc


def toy_instance_docs(vocab):
    return [instance_doc(vocab, *row) for row in INSTANCES]


def write_toy_folds(directory, vocab):
    """fold0..2.spacy: the same toy instances in each (the tests only need the format)."""
    directory.mkdir(parents=True, exist_ok=True)
    for k in range(3):
        DocBin(docs=toy_instance_docs(vocab), store_user_data=True).to_disk(directory / f"fold{k}.spacy")
    return directory
