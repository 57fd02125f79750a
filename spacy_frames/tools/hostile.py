"""A reproducible corpus of hostile documents: what real input throws at a pipeline.

Every kind is a function (random.Random) -> str. `hostile_documents(n, seed)` first gives
one document of every kind (in KINDS order, so n >= len(KINDS) covers them all), then
kinds drawn at random; the 20,000-word document is not drawn but placed once per
HUGE_EVERY documents, so a small corpus has it exactly once and a large one's run time
stays bounded (10,000 documents: about 640,000 spaCy tokens, a third of them in the ten
huge documents). `huge_words` shrinks the huge document for tests. Strings only: lone surrogates cannot be encoded as UTF-8 (spaCy's
serialisation and its n_process workers would fail on the input itself, not the pipeline).
"""

import json
import random
from typing import Callable, Dict, Iterator, List, NamedTuple

HUGE_WORDS = 20000
HUGE_EVERY = 1000  # a 20,000-word document per this many documents
LONG_TOKEN_CHARS = 5000

ENGLISH = [
    "The committee decided to postpone the vote after protesters blocked the entrance.",
    "She gave him a book about frames and he read it over the weekend.",
    "Prices rose sharply because demand outpaced the supply of grain.",
    "They walked to the station, bought tickets and boarded the train to Berlin.",
    "In contrast, the new law reduced taxes for small businesses.",
]
CJK = ["委员会决定推迟投票。", "価格は急激に上昇した。", "그들은 기차를 탔다.", "漢字かなカナ한글混在", "（全角！？）"]
ARABIC = ["قررت اللجنة تأجيل التصويت.", "ارتفعت الأسعار بشكل حاد", "مرحبا بالعالم ١٢٣"]
DEVANAGARI = ["समिति ने मतदान स्थगित करने का निर्णय लिया।", "कीमतें तेज़ी से बढ़ीं", "क्षत्रिय ॐ १२३"]
EMOJI = ["😀", "👩‍👩‍👧‍👦", "👍🏽", "🇩🇪", "🏳️‍🌈", "❤️", "🤷‍♀️", "1️⃣", "🧑🏿‍🚀"]
COMBINING = ["\u0301", "\u0308", "\u0336", "\u20dd", "\u0489", "\u0327", "\u035c"]
CONTROL = [
    "\x00",
    "\x1b[31m",
    "\x1b[0m",
    "\u200b",
    "\ufeff",
    "\u202e",
    "\u200d",
    "\x07",
    "\x7f",
    "\u2028",
    "\u2029",
    "\x0c",
    "\x0b",
    "\r",
    "\x85",
    "\ufffe",
    "\uffff",
    "\ue000",
    "\U0010ffff",
    "\u00ad",
]
WHITESPACE = [" ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2003", "\u202f"]
PUNCTUATION = ["!", "?", ".", ",", ";", ":", "-", "—", "…", "'", '"', "(", ")", "*", "#", "/", "\\", "|", "¿", "¡"]


class HostileDocument(NamedTuple):
    kind: str
    text: str


def _words(rng: random.Random, n: int) -> List[str]:
    vocabulary = " ".join(ENGLISH).replace(".", "").replace(",", "").split()
    return [rng.choice(vocabulary) for _ in range(n)]


def _english(rng: random.Random) -> str:
    return rng.choice(ENGLISH)


def _huge(rng: random.Random, n_words: int = HUGE_WORDS) -> str:
    words = _words(rng, n_words)
    # sentences of 5-40 words: the parser, the sentence pairs and the targets all see many
    out, i = [], 0
    while i < len(words):
        n = rng.randint(5, 40)
        out.append(" ".join(words[i : i + n]).capitalize() + rng.choice([".", ".", "?", "!", ";"]))
        i += n
    return " ".join(out)


def _long_token(rng: random.Random) -> str:
    if rng.random() < 0.5:
        token = "https://example.com/" + "".join(
            rng.choice("abcdefghij0123456789/?=&%-_.") for _ in range(LONG_TOKEN_CHARS)
        )
    else:
        token = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(LONG_TOKEN_CHARS))
    return f"{_english(rng)} {token} {_english(rng)}" if rng.random() < 0.5 else token


def _markup(rng: random.Random) -> str:
    sentence = _english(rng)
    return rng.choice(
        [
            f"<html><head><style>p {{color: red}}</style><script>var x = '<p>';</script></head>"
            f"<body><p class=\"a\">{sentence}</p><br/><a href='x?a=1&amp;b=2'>link</a>&nbsp;&lt;&gt;</body></html>",
            f"# Title\n\n* {sentence}\n* **bold** _it_ `code`\n\n```python\nprint('x')\n```\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n[link](http://x.y)",
            json.dumps(
                {"text": sentence, "nested": {"list": [1, 2.5, None, True], "empty": {}}, "unicode": "é😀"},
                ensure_ascii=rng.random() < 0.5,
            ),
            f'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE doc [<!ENTITY e "&#233;">]>\n<doc xmlns:x="urn:x">'
            f'<x:p id="1">{sentence}</x:p><![CDATA[<not> & markup]]><!-- comment --><empty/>&e;&#x1F600;</doc>',
        ]
    )


def _undecodable(rng: random.Random) -> str:
    raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
    if rng.random() < 0.5:  # broken bytes inside otherwise good UTF-8
        raw = _english(rng).encode("utf8") + raw + "é😀".encode("utf8")[: rng.randint(1, 5)]
    return raw.decode("utf8", errors="replace")


def _mix(pieces: List[str], rng: random.Random, n: int, sep: str = "") -> str:
    return sep.join(rng.choice(pieces) for _ in range(n))


KINDS: Dict[str, Callable[[random.Random], str]] = {
    "empty": lambda rng: "",
    "whitespace": lambda rng: _mix(WHITESPACE, rng, rng.randint(1, 200)),
    "one_word": lambda rng: rng.choice(_words(rng, 1) + ["x", "I", "a", "decided", "Berlin."]),
    "english": lambda rng: " ".join(rng.choice(ENGLISH) for _ in range(rng.randint(1, 6))),
    "huge": _huge,
    "cjk": lambda rng: _mix(CJK, rng, rng.randint(1, 20)),
    "arabic": lambda rng: _mix(ARABIC, rng, rng.randint(1, 10), " "),
    "devanagari": lambda rng: _mix(DEVANAGARI, rng, rng.randint(1, 10), " "),
    "emoji": lambda rng: _mix(EMOJI + [" "], rng, rng.randint(1, 100)),
    # a letter under a pile of marks, and marks with no base at all at the start
    "combining": lambda rng: (
        _mix(COMBINING, rng, 3) + " ".join(w + _mix(COMBINING, rng, rng.randint(1, 30)) for w in _words(rng, 8))
    ),
    "control": lambda rng: _mix(CONTROL + _words(rng, 10) + [" "], rng, rng.randint(1, 150)),
    "undecodable": _undecodable,
    "long_token": _long_token,
    "markup": _markup,
    "punctuation": lambda rng: _mix(PUNCTUATION, rng, rng.randint(1, 2000)),
    "newlines": lambda rng: (
        "\n" * rng.randint(1, 500) + "\n".join(_english(rng) + "\n" * rng.randint(0, 50) for _ in range(3))
    ),
    # hostile pieces between real sentences: frame targets, FE candidates and sentence
    # pairs right next to the weirdness, where the components do most with it
    "mixed": lambda rng: " ".join(
        rng.choice(
            [
                _english(rng),
                _mix(CONTROL, rng, 3),
                _mix(EMOJI, rng, 3),
                rng.choice(CJK),
                _mix(PUNCTUATION, rng, 20),
                "\n\n\n",
                _words(rng, 1)[0] + _mix(COMBINING, rng, 5),
                _undecodable(rng)[:50],
            ]
        )
        for _ in range(rng.randint(2, 12))
    ),
}
DRAWN = [kind for kind in KINDS if kind != "huge"]


def hostile_documents(n: int, seed: int = 0, huge_words: int = HUGE_WORDS) -> Iterator[HostileDocument]:
    """`n` hostile documents, the same for the same seed (see the module docstring); the
    huge ones have `huge_words` words."""
    rng = random.Random(seed)
    first = list(KINDS)
    for i in range(n):
        if i < len(first):
            kind = first[i]
        elif i % HUGE_EVERY == first.index("huge"):
            kind = "huge"
        else:
            kind = rng.choice(DRAWN)
        yield HostileDocument(kind, _huge(rng, huge_words) if kind == "huge" else KINDS[kind](rng))
