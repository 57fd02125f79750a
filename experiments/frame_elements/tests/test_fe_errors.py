"""Where frame_elements loses F (frames_lab.fe_research.errors): by hand, and through the
lab's `errors` command on the toy pipeline."""

import spacy
import srsly
from fe_toy import toy_fe_docs
from frames_lab.fe_research.cli import app
from frames_lab.fe_research.errors import fe_errors
from spacy.training import Example
from typer.testing import CliRunner

from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span


def test_error_breakdown_by_hand():
    nlp = spacy.blank("en")
    install_extensions()
    gold = toy_fe_docs(nlp.vocab)[0]  # "She gave him a gift ." Giving(gave): Donor 0-1, Recipient 2-3, Theme 3-5
    pred = nlp.make_doc(gold.text)
    gave = pred.char_span(4, 8, label="Giving")
    # Donor right; "him" named Theme (label); "gift" named Theme (boundary: gold Theme is "a gift");
    # "." named Time (spurious)
    pred.spans[FE_KEY] = [
        make_fe_span(gave, 0, 1, "Donor"),
        make_fe_span(gave, 2, 3, "Theme"),
        make_fe_span(gave, 4, 5, "Theme"),
        make_fe_span(gave, 5, 6, "Time"),
    ]
    errors = fe_errors([Example(pred, gold)])
    # and the Theme FrameNet puts on "gift" (Giving) is missed
    assert errors["gold"] == {"correct": 1, "boundary": 1, "label": 1, "overlap_other": 0, "missed": 1}
    assert errors["predicted"] == {"correct": 1, "boundary": 1, "label": 1, "overlap_other": 0, "spurious": 1}
    pred.spans[FE_KEY] = [make_fe_span(gave, 3, 4, "Donor")]  # over gold Theme, another name; the rest missed
    errors = fe_errors([Example(pred, gold)])
    assert errors["gold"] == {"correct": 0, "boundary": 0, "label": 0, "overlap_other": 1, "missed": 3}
    assert errors["predicted"]["overlap_other"] == 1


def test_errors_command_on_the_toy_pipeline(trained_fe, toy_fe_corpus, tmp_path):
    """The toy pipeline finds every gold FE of its own dev set: all correct, none spurious."""
    out = tmp_path / "errors.json"
    args = ["errors", str(trained_fe), "--corpus", str(toy_fe_corpus / "dev.spacy"), "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    errors = srsly.read_json(out)
    gold = errors["gold"]
    assert gold["correct"] > 0 and gold["correct"] == sum(gold.values())
    assert errors["predicted"]["spurious"] == 0
    missing = CliRunner().invoke(app, ["errors", str(tmp_path / "missing"), "-o", str(out)])
    assert missing.exit_code == 1
