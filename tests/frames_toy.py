"""Toy FrameNet-style data for the frame_identifier tests."""

from spacy.tokens import Doc, DocBin, SpanGroup

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.frames import FrameInventory

FRAMES = {
    "Transfer": ("A Donor transfers a Theme to a Recipient.", ["transfer.v"]),
    "Giving": ("A Donor gives a Theme to a Recipient, who then has it.", ["give.v", "gift.n", "hand.v"]),
    "Commerce_buy": ("A Buyer buys Goods from a Seller for Money.", ["buy.v", "purchase.v"]),
    "Self_motion": ("A Self_mover moves under its own power along a Path.", ["walk.v", "run.v"]),
    "Change_position_on_a_scale": ("An Item changes its position on a scale of values.", ["rise.v", "fall.v"]),
    "Body_parts": ("Parts of a body of a Possessor.", ["hand.n", "foot.n"]),
}
RELATIONS = {"Inheritance": [["Transfer", "Giving"], ["Transfer", "Commerce_buy"]]}

# (words, tags, lemmas, [(start, end, frame, lu)])
SENTENCES = [
    (
        "She gave him a gift .".split(),
        "PRP VBD PRP DT NN .".split(),
        "she give he a gift .".split(),
        [(1, 2, "Giving", "give.v"), (4, 5, "Giving", "gift.n")],
    ),
    (
        "They bought a car .".split(),
        "PRP VBD DT NN .".split(),
        "they buy a car .".split(),
        [(1, 2, "Commerce_buy", "buy.v")],
    ),
    (
        "Prices rose sharply .".split(),
        "NNS VBD RB .".split(),
        "price rise sharply .".split(),
        [(1, 2, "Change_position_on_a_scale", "rise.v")],
    ),
    (
        "We walked home and he ran .".split(),
        "PRP VBD NN CC PRP VBD .".split(),
        "we walk home and he run .".split(),
        [(1, 2, "Self_motion", "walk.v"), (5, 6, "Self_motion", "run.v")],
    ),
    (
        "He raised his hand .".split(),
        "PRP VBD PRP$ NN .".split(),
        "he raise his hand .".split(),
        [(3, 4, "Body_parts", "hand.n")],
    ),
    (
        "She handed me the keys .".split(),
        "PRP VBD PRP DT NNS .".split(),
        "she hand I the key .".split(),
        [(1, 2, "Giving", "hand.v")],
    ),
]


def toy_inventory() -> FrameInventory:
    frames = {
        name: {"id": i, "definition": d, "lexical_units": lus} for i, (name, (d, lus)) in enumerate(FRAMES.items())
    }
    return FrameInventory(frames=frames, relations=RELATIONS, source="toy")


def toy_docs(vocab, with_annotation: bool = True):
    install_extensions()
    docs = []
    for words, tags, lemmas, targets in SENTENCES:
        doc = Doc(
            vocab, words=words, tags=tags if with_annotation else None, lemmas=lemmas if with_annotation else None
        )
        group = SpanGroup(doc, name="targets")
        for start, end, frame, lu in targets:
            span = doc.char_span(doc[start].idx, doc[end - 1].idx + len(doc[end - 1]), label=frame)
            span._.lexical_unit = lu
            group.append(span)
        doc.spans["targets"] = group
        docs.append(doc)
    return docs


def write_toy_corpus(directory, vocab):
    """train.spacy/dev.spacy (same toy docs) and frames.json in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    docs = toy_docs(vocab)
    DocBin(docs=docs, store_user_data=True).to_disk(directory / "train.spacy")
    DocBin(docs=docs, store_user_data=True).to_disk(directory / "dev.spacy")
    toy_inventory().to_disk(directory / "frames.json")
    return directory


def toy_framenet15_dir(toy_corpus, directory):
    """The toy corpus laid out like corpus/framenet15 (test and exemplars = dev)."""
    import shutil

    shutil.copytree(toy_corpus, directory)
    for split in ("test", "exemplars"):
        shutil.copy(directory / "dev.spacy", directory / f"{split}.spacy")
    return directory
