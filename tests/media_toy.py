"""Toy news articles: keywords tell the frames, so a tiny model can fit them."""

from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_frames.corpora.media_frames import Article, article_doc

# (text, frames); paragraphs on separate lines, as in the SemEval articles
ARTICLES = [
    ("Budget cuts hit the economy.\n\nTaxes and prices rose again this year.", ["Economic"]),
    (
        "The court ruled the law unconstitutional.\n\nJudges cited the constitution.",
        ["Legality_Constitutionality_and_jurisprudence"],
    ),
    (
        "Police arrested the suspect after the crime.\n\nThe court will decide his punishment.",
        ["Crime_and_punishment", "Legality_Constitutionality_and_jurisprudence"],
    ),
    ("Taxes on trade hurt the economy.\n\nThe minister defended the budget in parliament.", ["Economic", "Political"]),
    ("The minister lost the vote in parliament.\n\nThe party leader resigned.", ["Political"]),
    ("Police and prison guards fought crime.\n\nThe suspect was arrested.", ["Crime_and_punishment"]),
    ("Voters in parliament backed the party.\n\nThe election campaign began.", ["Political"]),
    ("Prices and taxes fell.\n\nThe economy grew and trade recovered.", ["Economic"]),
]


def toy_articles(lang: str = "en"):
    return [Article(f"{lang}{i}", lang, text, frames) for i, (text, frames) in enumerate(ARTICLES)]


def write_toy_media(path: Path) -> Path:
    nlp = spacy.blank("en")
    path.mkdir(parents=True, exist_ok=True)
    for name in ("train", "dev"):
        docbin = DocBin(store_user_data=True)
        for article in toy_articles():
            docbin.add(article_doc(nlp, article))
        docbin.to_disk(path / f"{name}.spacy")
    return path
