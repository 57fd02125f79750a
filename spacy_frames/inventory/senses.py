"""The PDTB-3 sense hierarchy of discourse relations (Webber et al. 2019).

Senses are paths "Level1.Level2[.Level3]". As Long & Webber (2022) do, the leaves
are level-3 senses for asymmetric relations ("Contingency.Cause.Reason": which
argument is the reason) and level-2 senses for symmetric ones ("Expansion.Conjunction").
`SenseHierarchy` answers what the component asks: a sense's level-1 and level-2
senses, the sister leaves under the same level-1 sense, and which paths are valid.

Corpora spell senses loosely (GDTB: "Cmparison.Concession", trailing blanks;
DiscoGeM: bare lower-case leaves such as "arg2-as-detail"): `normalize` maps those to
inventory paths, or None for what is not a sense (NoRel, DiscoGeM's "differentcon").
"""

import difflib
from typing import Dict, List, Optional

# level 1 -> level 2 -> level-3 leaves ([] for symmetric senses: level 2 is the leaf)
PDTB3_SENSES: Dict[str, Dict[str, List[str]]] = {
    "Temporal": {
        "Synchronous": [],
        "Asynchronous": ["Precedence", "Succession"],
    },
    "Contingency": {
        "Cause": ["Reason", "Result", "NegResult"],
        "Cause+Belief": ["Reason+Belief", "Result+Belief"],
        "Cause+SpeechAct": ["Reason+SpeechAct", "Result+SpeechAct"],
        "Condition": ["Arg1-as-cond", "Arg2-as-cond"],
        "Condition+SpeechAct": [],
        "Negative-condition": ["Arg1-as-negcond", "Arg2-as-negcond"],
        "Negative-condition+SpeechAct": [],
        "Purpose": ["Arg1-as-goal", "Arg2-as-goal"],
    },
    "Comparison": {
        "Concession": ["Arg1-as-denier", "Arg2-as-denier"],
        "Concession+SpeechAct": ["Arg2-as-denier+SpeechAct"],
        "Contrast": [],
        "Similarity": [],
    },
    "Expansion": {
        "Conjunction": [],
        "Disjunction": [],
        "Equivalence": [],
        "Exception": ["Arg1-as-excpt", "Arg2-as-excpt"],
        "Instantiation": ["Arg1-as-instance", "Arg2-as-instance"],
        "Level-of-detail": ["Arg1-as-detail", "Arg2-as-detail"],
        "Manner": ["Arg1-as-manner", "Arg2-as-manner"],
        "Substitution": ["Arg1-as-subst", "Arg2-as-subst"],
    },
}

# labels that corpora use for "no sense": never a class
NOT_SENSES = frozenset({"norel", "entrel", "differentcon", "hypophora", "_", ""})


class SenseHierarchy:
    """Leaves, parents and sisters of a sense inventory (default: PDTB-3)."""

    def __init__(self, senses: Optional[Dict[str, Dict[str, List[str]]]] = None):
        senses = PDTB3_SENSES if senses is None else senses
        self.level1: List[str] = list(senses)
        self.level2: List[str] = [f"{l1}.{l2}" for l1, subs in senses.items() for l2 in subs]
        self.leaves: List[str] = []
        for l1, subs in senses.items():
            for l2, l3s in subs.items():
                self.leaves.extend(f"{l1}.{l2}.{l3}" for l3 in l3s) if l3s else self.leaves.append(f"{l1}.{l2}")
        self._paths = set(self.level1) | set(self.level2) | set(self.leaves)
        self._by_lower = {p.lower(): p for p in self._paths}
        # DiscoGeM writes leaves only: the last component, lower-cased, is unique in PDTB-3
        self._by_last: Dict[str, str] = {}
        for leaf in self.leaves:
            self._by_last.setdefault(leaf.rsplit(".", 1)[-1].lower(), leaf)

    def __contains__(self, path: str) -> bool:
        return path in self._paths

    @staticmethod
    def parts(path: str) -> List[str]:
        return path.split(".")

    def level_of(self, path: str) -> int:
        return len(self.parts(path))

    def l1(self, path: str) -> str:
        return self.parts(path)[0]

    def l2(self, path: str) -> Optional[str]:
        """The level-2 path ("Expansion.Conjunction"), None for a level-1 sense."""
        parts = self.parts(path)
        return ".".join(parts[:2]) if len(parts) >= 2 else None

    def sisters(self, leaf: str) -> List[str]:
        """The other leaves under the same level-1 sense (the contrastive negatives)."""
        top = self.l1(leaf)
        return [other for other in self.leaves if other != leaf and self.l1(other) == top]

    def normalize(self, label: str) -> Optional[str]:
        """An inventory path for a corpus label, None when the label is not a sense.
        Raises ValueError for a label that is neither (an unknown sense)."""
        text = " ".join(label.split()).replace(" ", "")
        key = text.lower()
        if key in NOT_SENSES:
            return None
        if key in self._by_lower:
            return self._by_lower[key]
        if "." not in key and key in self._by_last:
            return self._by_last[key]
        # one misspelt component ("Cmparison.Concession"): fix each part against the inventory
        parts, fixed = text.split("."), []
        for depth, part in enumerate(parts):
            prefix = ".".join(fixed)
            options = [
                p.rsplit(".", 1)[-1]
                for p in self._paths
                if self.level_of(p) == depth + 1 and (not prefix or p.startswith(prefix + "."))
            ]
            match = difflib.get_close_matches(part, options, n=1, cutoff=0.8)
            if not match:
                raise ValueError(f"unknown discourse sense {label!r} (not in the PDTB-3 inventory)")
            fixed.append(match[0])
        return ".".join(fixed)
