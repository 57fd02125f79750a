"""Toy discourse relations: Arg2's first word tells the sense, so a tiny model can fit them."""

from pathlib import Path

from spacy.tokens import DocBin

from spacy_frames.corpora.discourse import DiscourseRelation, relation_doc

# (arg1, arg2, sense, implicit connective)
RELATIONS = [
    ("Prices rose sharply.", "So demand outpaced the supply of grain.", "Contingency.Cause.Result", "so"),
    (
        "The committee decided to postpone the vote.",
        "So protesters blocked the entrance.",
        "Contingency.Cause.Result",
        "so",
    ),
    (
        "They walked to the station.",
        "Then they boarded the train to Berlin.",
        "Temporal.Asynchronous.Precedence",
        "then",
    ),
    ("She gave him a book.", "Then he read it over the weekend.", "Temporal.Asynchronous.Precedence", "then"),
    (
        "The old law raised taxes.",
        "In contrast, the new law reduced taxes for small businesses.",
        "Comparison.Contrast",
        "however",
    ),
    ("Demand was high.", "In contrast, the supply of grain was low.", "Comparison.Contrast", "however"),
    ("She gave him a book.", "And he gave her a train ticket.", "Expansion.Conjunction", "and"),
    ("Prices rose sharply.", "And the committee decided to postpone the vote.", "Expansion.Conjunction", "and"),
]


def toy_relations():
    return [
        DiscourseRelation(f"toy:{i}", "Implicit", a1, a2, [sense], conn, source="toy")
        for i, (a1, a2, sense, conn) in enumerate(RELATIONS)
    ]


def write_toy_discourse(path: Path, nlp) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in ("train", "dev"):
        docbin = DocBin(store_user_data=True)
        for rel in toy_relations():
            docbin.add(relation_doc(nlp, rel))
        docbin.to_disk(path / f"{name}.spacy")
    return path
