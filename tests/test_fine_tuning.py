"""docs/fine_tuning.md on a toy domain FrameNet: the fixture release plus one new frame
(Brewing) whose FE names no model has seen, converted with `spacy-frames convert`, the
tiny frame parser given its inventory (`spacy_frames.set_inventory`), fine-tuned with
configs/fine_tune.cfg at toy sizes, and the result loaded back."""

import shutil
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
import spacy
from typer.testing import CliRunner

import spacy_frames
from spacy_frames.cli import app

FIXTURE = Path(__file__).parent / "fixtures" / "framenet" / "fndata-1.5"
NS = 'xmlns="http://framenet.icsi.berkeley.edu"'
FRAME, FRAME_ID = "Brewing", 9001
NEW_FES = {"Brewmaster": 90011, "Beverage_brewed": 90012}
# (brewer, target, beverage, rest) per sentence: "<brewer> <target> <beverage> <rest> ."
SENTENCES = [
    ("The monks", "brew", "beer", "in the old abbey"),
    ("She", "brews", "coffee", "every morning"),
    ("They", "brewed", "tea", "for the guests"),
    ("My uncle", "brews", "cider", "in autumn"),
    ("The students", "brewed", "beer", "at the weekend"),
    ("He", "brews", "tea", "after the vote"),
]
# the toy run: sizes and steps overridden on the command line, as a user could
TOY_OVERRIDES = {
    "training.max_steps": 60,
    "training.eval_frequency": 30,
    "training.optimizer.learn_rate.warmup_steps": 2,
    "training.optimizer.learn_rate.initial_rate": 0.001,
    "training.batcher.size": 60,
}


def frame_xml() -> str:
    fes = "".join(
        f'<FE coreType="Core" abbrev="{name[:3]}" name="{name}" ID="{fe_id}">'
        f"<definition>{escape('<def-root>The ' + name.replace('_', ' ').lower() + '.</def-root>')}</definition></FE>"
        for name, fe_id in NEW_FES.items()
    )
    definition = escape("<def-root>A Brewmaster makes a Beverage_brewed by steeping or fermenting.</def-root>")
    lexical_unit = (
        '<lexUnit status="Created" POS="V" name="brew.v" ID="90020" lemmaID="90021">'
        '<definition>COD: make by steeping or fermenting</definition><sentenceCount annotated="6" total="6"/>'
        '<lexeme order="1" headword="false" breakBefore="false" POS="V" name="brew"/></lexUnit>'
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<frame name="{FRAME}" ID="{FRAME_ID}" {NS}>'
        f"<definition>{definition}</definition>{fes}{lexical_unit}</frame>\n"
    )


def sentence_xml(number: int, brewer: str, target: str, beverage: str, rest: str) -> str:
    text = f"{brewer} {target} {beverage} {rest} ."
    spans = {"Target": (len(brewer) + 1, len(brewer) + len(target))}
    spans["Brewmaster"] = (0, len(brewer) - 1)
    start = spans["Target"][1] + 2
    spans["Beverage_brewed"] = (start, start + len(beverage) - 1)
    penn, offset = [], 0
    for word in text.split(" "):
        penn.append(f'<label start="{offset}" end="{offset + len(word) - 1}" name="nn"/>')
        offset += len(word) + 1
    fes = "".join(
        f'<label feID="{NEW_FES[name]}" start="{spans[name][0]}" end="{spans[name][1]}" name="{name}"/>'
        for name in NEW_FES
    )
    return (
        f'<sentence sentNo="{number}" paragNo="1" aPos="0" ID="{9100 + number}"><text>{text}</text>'
        f'<annotationSet status="UNANN" ID="{9200 + number}"><layer rank="1" name="PENN">{"".join(penn)}</layer>'
        f"</annotationSet>"
        f'<annotationSet luID="90020" luName="brew.v" frameID="{FRAME_ID}" frameName="{FRAME}" status="MANUAL" '
        f'ID="{9300 + number}"><layer rank="1" name="Target"><label start="{spans["Target"][0]}" '
        f'end="{spans["Target"][1]}" name="Target"/></layer><layer rank="1" name="FE">{fes}</layer>'
        f"</annotationSet></sentence>"
    )


def add_line(path: Path, closing: str, line: str) -> None:
    text = path.read_text()
    path.write_text(text.replace(closing, line + "\n" + closing))


def write_domain_framenet(root: Path) -> Path:
    """The fixture release with the Brewing frame, its lexical unit and a full-text
    document of SENTENCES added, in FrameNet's XML layout."""
    shutil.copytree(FIXTURE, root)
    (root / "frame" / f"{FRAME}.xml").write_text(frame_xml())
    add_line(root / "frameIndex.xml", "</frameIndex>", f'<frame ID="{FRAME_ID}" name="{FRAME}"/>')
    lu = (
        f'<lu hasAnnotation="true" frameID="{FRAME_ID}" frameName="{FRAME}" status="Created" name="brew.v" ID="90020"/>'
    )
    add_line(root / "luIndex.xml", "</luIndex>", lu)
    document = '<corpus name="Domain" ID="9000"><document description="Brewing" ID="9001"/></corpus>'
    add_line(root / "fulltextIndex.xml", "</fulltextIndex>", document)
    sentences = "".join(sentence_xml(i + 1, *parts) for i, parts in enumerate(SENTENCES))
    (root / "fulltext" / "Domain__Brewing.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<fullTextAnnotation {NS}><header><corpus name="Domain" ID="9000">'
        f'<document description="Brewing" ID="9001"/></corpus></header>{sentences}</fullTextAnnotation>\n'
    )
    return root


@pytest.fixture(scope="module")
def domain_corpus(tmp_path_factory) -> Path:
    """`spacy-frames convert framenet` of the toy domain release (no splits: fulltext.spacy)."""
    tmp = tmp_path_factory.mktemp("domain")
    release = write_domain_framenet(tmp / "domain_framenet")
    result = CliRunner().invoke(app, ["convert", "framenet", str(release), str(tmp / "corpus")])
    assert result.exit_code == 0, result.output
    return tmp / "corpus"


@pytest.fixture(scope="module")
def fine_tuned(trained_fe, domain_corpus, tmp_path_factory) -> Path:
    """The walk-through's steps 2 and 3 on the tiny frame parser: the domain inventory
    swapped in and saved as the base, then `spacy train configs/fine_tune.cfg` on the
    toy corpus (train = dev: the toy run overfits)."""
    from spacy.cli.train import train

    tmp = tmp_path_factory.mktemp("fine_tuned")
    nlp = spacy.load(trained_fe)
    spacy_frames.set_inventory(nlp, domain_corpus / "frames.json")
    nlp.to_disk(tmp / "base")
    data = str(domain_corpus / "fulltext.spacy")
    overrides = {"paths.base": str(tmp / "base"), "paths.train": data, "paths.dev": data, **TOY_OVERRIDES}
    train(Path(__file__).parents[1] / "configs" / "fine_tune.cfg", tmp / "output", overrides=overrides)
    return tmp / "output" / "model-last"


def test_domain_release_converts_with_the_new_frame(domain_corpus):
    from spacy_frames.inventory.frames import FrameInventory

    inventory = FrameInventory().from_disk(domain_corpus / "frames.json")
    assert FRAME in inventory and set(inventory.fe_names(FRAME)) == set(NEW_FES)
    assert (domain_corpus / "fulltext.spacy").is_file()


@pytest.mark.slow
def test_fine_tuned_parser_predicts_the_new_frame_and_fes(fine_tuned, tmp_path):
    nlp = spacy.load(fine_tuned)
    nlp.to_disk(tmp_path / "again")
    nlp = spacy.load(tmp_path / "again")
    identifier, elements = nlp.get_pipe("frame_identifier"), nlp.get_pipe("frame_elements")
    assert FRAME in identifier.inventory and set(identifier.inventory.fe_names(FRAME)) == set(NEW_FES)
    assert set(NEW_FES) <= set(elements.fe_names)
    gold, found = set(), set()
    for brewer, target, beverage, rest in SENTENCES:
        doc = nlp(f"{brewer} {target} {beverage} {rest} .")
        frames = [span for span in doc.spans["frames"] if span.label_ == FRAME]
        assert [span.text for span in frames] == [target], [(s.text, s.label_) for s in doc.spans["frames"]]
        gold.update({(target, brewer, "Brewmaster"), (target, beverage, "Beverage_brewed")})
        found.update((span.text, fe.text, fe.label_) for span in frames for fe in span._.frame_elements)
    # the new FE names start as random rows (the base labels them at random); the toy run
    # overfits them: most of the gold FEs of the training sentences come back exactly
    assert len(gold & found) >= 2 * len(gold) // 3, sorted(found)
