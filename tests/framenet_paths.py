"""Where the FrameNet test fixtures (and the real mirror, when present) live."""

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "framenet"
FN17 = FIXTURES / "fn17"
FN17_FRAMES = FN17 / "frames_xml"
FN17_LEXICON = FN17 / "lexicon_json" / "FN17_enlu_id.json"
FN17_CONLL = FN17 / "open_sesame" / "fn1.7.dev.syntaxnet.conll"
SAMPLE_CONLL = FN17 / "open_sesame" / "sample.fn1.7.train.conll"
SPLITS = FIXTURES / "splits.json"
REAL = Path(__file__).parents[1] / ".." / "shared" / "assets" / "framenet"
