"""Toy frame-element data for the frame_elements tests: the frames_toy sentences with
their FEs, and the toy inventory with FE definitions."""

from frames_toy import FRAMES, RELATIONS, toy_docs
from spacy.tokens import DocBin, SpanGroup

from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span
from spacy_frames.inventory.frames import FrameInventory

FE_DEFS = {
    "Transfer": [
        ("Donor", "Core", "The one who transfers."),
        ("Theme", "Core", "What is transferred."),
        ("Recipient", "Core", "The one who gets it."),
    ],
    "Giving": [
        (
            "Donor",
            "Core",
            "The person that begins in possession of the Theme and causes it to be in the possession of the Recipient.",
        ),
        ("Recipient", "Core", "The entity that ends up in possession of the Theme."),
        ("Theme", "Core", "The object that changes ownership."),
        ("Time", "Peripheral", "When the giving happens."),
    ],
    "Commerce_buy": [
        ("Buyer", "Core", "The Buyer wants the Goods and offers Money."),
        ("Goods", "Core", "Anything exchanged for Money."),
        ("Seller", "Core", "The Seller has possession of the Goods."),
    ],
    "Self_motion": [
        ("Self_mover", "Core", "A living being which moves under its own power."),
        ("Goal", "Core", "Where the Self_mover ends up."),
        ("Source", "Core", "Where the Self_mover starts."),
    ],
    "Change_position_on_a_scale": [
        ("Item", "Core", "The entity that has a position on the scale."),
        ("Manner", "Peripheral", "How the change happens."),
    ],
    "Body_parts": [
        ("Possessor", "Core", "The being that has the body part."),
        ("Body_part", "Core", "The part of the body."),
    ],
}
EXCLUDES = {("Self_motion", "Goal"): ["Source"], ("Self_motion", "Source"): ["Goal"]}

# per sentence of frames_toy.SENTENCES: per target (by index) its (start, end, FE) tokens;
# "gift" is the Theme of its own Giving target (an FE FrameNet puts on the target itself)
FES = [
    {0: [(0, 1, "Donor"), (2, 3, "Recipient"), (3, 5, "Theme")], 1: [(4, 5, "Theme")]},
    {0: [(0, 1, "Buyer"), (2, 4, "Goods")]},
    {0: [(0, 1, "Item"), (2, 3, "Manner")]},
    {0: [(0, 1, "Self_mover"), (2, 3, "Goal")], 1: [(4, 5, "Self_mover")]},
    {0: [(2, 3, "Possessor")]},
    {0: [(0, 1, "Donor"), (2, 3, "Recipient"), (3, 5, "Theme")]},
]


def toy_fe_inventory() -> FrameInventory:
    frames = {}
    for i, (name, (definition, lus)) in enumerate(FRAMES.items()):
        fes = [
            {
                "name": fe,
                "core_type": core,
                "definition": d,
                "id": 100 * i + j,
                "excludes": EXCLUDES.get((name, fe), []),
            }
            for j, (fe, core, d) in enumerate(FE_DEFS[name])
        ]
        frames[name] = {"id": i, "definition": definition, "lexical_units": lus, "frame_elements": fes}
    return FrameInventory(frames=frames, relations=RELATIONS, source="toy")


def toy_fe_docs(vocab):
    docs = toy_docs(vocab)
    for doc, fes in zip(docs, FES):
        targets = list(doc.spans["targets"])
        doc.spans[FE_KEY] = SpanGroup(
            doc,
            name=FE_KEY,
            spans=[make_fe_span(targets[t], s, e, label) for t, spans in fes.items() for s, e, label in spans],
        )
    return docs


def write_toy_fe_corpus(directory, vocab):
    """train.spacy / dev.spacy (the same toy docs with FEs) and frames.json with FEs."""
    directory.mkdir(parents=True, exist_ok=True)
    docs = toy_fe_docs(vocab)
    for split in ("train", "dev"):
        DocBin(docs=docs, store_user_data=True).to_disk(directory / f"{split}.spacy")
    toy_fe_inventory().to_disk(directory / "frames.json")
    return directory


def gold_frames_doc(nlp, ref):
    """`ref`'s text with its gold targets as preset frames (doc.spans["frames"])."""
    install_extensions()
    doc = nlp.make_doc(ref.text)
    doc.spans["frames"] = [doc.char_span(t.start_char, t.end_char, label=t.label_) for t in ref.spans["targets"]]
    return doc


def toy_tok2vec():
    """A small CNN token encoder for the FE model tests."""
    from spacy.util import registry

    return registry.architectures.get("spacy.HashEmbedCNN.v2")(
        width=32,
        depth=1,
        embed_size=500,
        window_size=1,
        maxout_pieces=2,
        subword_features=True,
        pretrained_vectors=None,
    )


def fe_corpus_with_target_fe(toy_fe_corpus, fn15):
    """The toy FE corpus as FN1.5 train/dev/test in `fn15`, with an FE FrameNet puts on its
    own target that the toy training data lacks (Body_part on the "hand" target)."""
    import shutil

    import spacy

    fn15.mkdir()
    shutil.copy(toy_fe_corpus / "frames.json", fn15 / "frames.json")
    docs = toy_fe_docs(spacy.blank("en").vocab)
    span = docs[4].spans["targets"][0]
    docs[4].spans[FE_KEY] = list(docs[4].spans[FE_KEY]) + [make_fe_span(span, span.start, span.end, "Body_part")]
    for split in ("train", "dev", "test"):
        DocBin(docs=docs, store_user_data=True).to_disk(fn15 / f"{split}.spacy")
    return fn15
