"""The coarse part of speech and morphology of Penn Treebank tags, for spaCy's
`attribute_ruler`: what en_frames_trf's tagger (trained on FrameNet's own PTB layer) needs
to feed spaCy's rule lemmatizer and the lexicon's lemma.POS lookup.

    [initialize.components.attribute_ruler.patterns]
    @misc = "spacy-frames.ptb_attribute_patterns.v1"

First each PTB tag's Universal Dependencies POS and features (`TAG_MAP`, as spaCy's
English pipelines map them: MD is AUX; PRP$, WP$ and WDT are pronouns), then the verbs UD
calls AUX, which PTB tags as any verb: every form of "be" (copula or auxiliary), and
"have" / "do" when a participle or a bare verb follows (adverbs and "not" between), found
without a parse, with the lemmas spaCy's rule lemmatizer does not give (it has no AUX
rules). attribute_ruler lets a later pattern win, so the order is the meaning: one list,
not a tag_map beside patterns (attribute_ruler's initialize loads a tag_map after them).
"""

from typing import Any, Dict, List

from spacy.util import registry

VERB_TAGS = ["VB", "VBD", "VBG", "VBN", "VBP", "VBZ"]
BE_FORMS = ["be", "am", "is", "are", "was", "were", "been", "being", "'m", "'s", "'re", "’m", "’s", "’re"]
HAVE_FORMS = ["have", "has", "had", "having", "'ve", "'d", "’ve", "’d"]
DO_FORMS = ["do", "does", "did", "doing", "done"]
# the modals' lemmas, as FrameNet's lexical units and spaCy's English pipelines name them
MODAL_LEMMAS = {
    "can": "can", "ca": "can", "could": "can", "may": "may", "might": "may", "must": "must",
    "shall": "shall", "should": "shall", "will": "will", "wo": "will", "would": "will",
    "'ll": "will", "’ll": "will", "'d": "will", "’d": "will", "ought": "ought", "need": "need", "dare": "dare",
}  # fmt: skip
# between an auxiliary and its verb: adverbs, "not", a subject pronoun in a question
SKIPPED = {"TAG": {"IN": ["RB", "RBR", "RBS", "PRP"]}, "OP": "*"}

TAG_MAP: Dict[str, Dict[str, str]] = {
    ".": {"POS": "PUNCT", "PunctType": "Peri"},
    ",": {"POS": "PUNCT", "PunctType": "Comm"},
    "-LRB-": {"POS": "PUNCT", "PunctType": "Brck", "PunctSide": "Ini"},
    "-RRB-": {"POS": "PUNCT", "PunctType": "Brck", "PunctSide": "Fin"},
    "``": {"POS": "PUNCT", "PunctType": "Quot", "PunctSide": "Ini"},
    "''": {"POS": "PUNCT", "PunctType": "Quot", "PunctSide": "Fin"},
    '""': {"POS": "PUNCT", "PunctType": "Quot"},
    ":": {"POS": "PUNCT"},
    "HYPH": {"POS": "PUNCT", "PunctType": "Dash"},
    "NFP": {"POS": "PUNCT"},
    "$": {"POS": "SYM"},
    "#": {"POS": "SYM"},
    "SYM": {"POS": "SYM"},
    "AFX": {"POS": "ADJ", "Hyph": "Yes"},
    "CC": {"POS": "CCONJ", "ConjType": "Cmp"},
    "CD": {"POS": "NUM", "NumType": "Card"},
    "DT": {"POS": "DET"},
    "PDT": {"POS": "DET"},
    "EX": {"POS": "PRON"},
    "FW": {"POS": "X", "Foreign": "Yes"},
    "LS": {"POS": "X", "NumType": "Ord"},
    "ADD": {"POS": "X"},
    "GW": {"POS": "X"},
    "XX": {"POS": "X"},
    "NIL": {"POS": "X"},
    "IN": {"POS": "ADP"},
    "RP": {"POS": "ADP"},
    "JJ": {"POS": "ADJ", "Degree": "Pos"},
    "JJR": {"POS": "ADJ", "Degree": "Cmp"},
    "JJS": {"POS": "ADJ", "Degree": "Sup"},
    "NN": {"POS": "NOUN", "Number": "Sing"},
    "NNS": {"POS": "NOUN", "Number": "Plur"},
    "NNP": {"POS": "PROPN", "Number": "Sing"},
    "NNPS": {"POS": "PROPN", "Number": "Plur"},
    "POS": {"POS": "PART", "Poss": "Yes"},
    "PRP": {"POS": "PRON", "PronType": "Prs"},
    "PRP$": {"POS": "PRON", "Poss": "Yes", "PronType": "Prs"},
    "WDT": {"POS": "PRON"},
    "WP": {"POS": "PRON"},
    "WP$": {"POS": "PRON", "Poss": "Yes"},
    "RB": {"POS": "ADV", "Degree": "Pos"},
    "RBR": {"POS": "ADV", "Degree": "Cmp"},
    "RBS": {"POS": "ADV", "Degree": "Sup"},
    "WRB": {"POS": "ADV"},
    "TO": {"POS": "PART"},
    "UH": {"POS": "INTJ"},
    "MD": {"POS": "AUX", "VerbType": "Mod"},
    "VB": {"POS": "VERB", "VerbForm": "Inf"},
    "VBD": {"POS": "VERB", "Tense": "Past", "VerbForm": "Fin"},
    "VBG": {"POS": "VERB", "Aspect": "Prog", "Tense": "Pres", "VerbForm": "Part"},
    "VBN": {"POS": "VERB", "Aspect": "Perf", "Tense": "Past", "VerbForm": "Part"},
    "VBP": {"POS": "VERB", "Tense": "Pres", "VerbForm": "Fin"},
    "VBZ": {"POS": "VERB", "Number": "Sing", "Person": "3", "Tense": "Pres", "VerbForm": "Fin"},
    "_SP": {"POS": "SPACE"},
}


@registry.misc("spacy-frames.ptb_attribute_patterns.v1")
def ptb_attribute_patterns() -> List[Dict[str, Any]]:
    """attribute_ruler patterns: the tag map's, then the auxiliaries' (module docstring)."""
    by_tag = []
    for tag, attrs in TAG_MAP.items():
        features = "|".join(f"{k}={v}" for k, v in sorted(attrs.items()) if k != "POS")
        by_tag.append({"patterns": [[{"TAG": tag}]], "attrs": {"POS": attrs["POS"], "MORPH": features}})
    return by_tag + auxiliary_patterns()


def auxiliary_patterns() -> List[Dict[str, Any]]:
    """attribute_ruler patterns for the verbs the rule lemmatizer does not lemmatize (it
    has no AUX rules): every form of "be" is AUX with lemma "be"; "have" and "do" get
    their lemma, and AUX when a participle (a bare verb) follows; modals get their lemma
    ("could" -> "can"), "n't" is "not". Tags and features stay the tagger's."""
    verb = {"TAG": {"IN": VERB_TAGS}}
    patterns = [
        {"patterns": [[{"LOWER": {"IN": BE_FORMS}, **verb}]], "attrs": {"POS": "AUX", "LEMMA": "be"}},
        {"patterns": [[{"LOWER": {"IN": HAVE_FORMS}, **verb}]], "attrs": {"LEMMA": "have"}},
        {"patterns": [[{"LOWER": {"IN": DO_FORMS}, **verb}]], "attrs": {"LEMMA": "do"}},
        {
            "patterns": [[{"LOWER": {"IN": HAVE_FORMS}, **verb}, SKIPPED, {"TAG": "VBN"}]],
            "attrs": {"POS": "AUX"},
            "index": 0,
        },
        {
            "patterns": [[{"LOWER": {"IN": DO_FORMS}, **verb}, SKIPPED, {"TAG": "VB"}]],
            "attrs": {"POS": "AUX"},
            "index": 0,
        },
    ]
    negation = {"LOWER": {"IN": ["n't", "n’t"]}}
    patterns.append({"patterns": [[negation]], "attrs": {"POS": "PART", "LEMMA": "not"}})
    for form, lemma in MODAL_LEMMAS.items():
        patterns.append({"patterns": [[{"LOWER": form, "TAG": "MD"}]], "attrs": {"LEMMA": lemma}})
    return patterns
