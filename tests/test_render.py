"""See the parses: spacy_frames.render and `spacy-frames render`, checked in headless chromium."""

import os
import shutil
import subprocess

import pytest
import spacy
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.render import render, render_doc

# every test reads a parsed toy pipeline (seconds to build) or a real browser
pytestmark = pytest.mark.slow

TEXTS = ["She gave him a gift .", "They bought a car and we walked home ."]


@pytest.fixture(scope="module")
def parsed(tiny_frames_trf):
    nlp = spacy.load(tiny_frames_trf)
    return nlp, list(nlp.pipe(TEXTS))


def test_every_frame_and_frame_element_is_rendered(parsed):
    _, docs = parsed
    assert any(doc._.frames for doc in docs)
    html = render(docs)
    assert html.startswith("<!DOCTYPE html>") and html.count("class='sf-doc'") == len(docs)
    for doc in docs:
        fragment = render_doc(doc)
        for frame in doc._.frames:
            assert frame.label_ in fragment
            if frame._.induced_frame:
                assert frame._.induced_frame in fragment
            for fe in frame._.frame_elements:
                assert fe.label_ in fragment
        for frame in doc._.media_frames:
            assert frame in fragment


def test_text_is_escaped_and_a_doc_without_frames_says_so(parsed):
    nlp, _ = parsed
    doc = nlp("<script>alert(1)</script>")
    html = render([doc], page=False)
    assert "<script>" not in html and "&lt;script&gt;" in html
    empty = nlp("")
    assert "no frames" in render_doc(empty)


def test_render_cli_and_its_errors(tiny_frames_trf, tmp_path):
    runner = CliRunner()
    source = tmp_path / "docs.txt"
    source.write_text("\n".join(TEXTS) + "\n\n")
    out = tmp_path / "parses.html"
    result = runner.invoke(app, ["render", str(tiny_frames_trf), str(source), str(out)])
    assert result.exit_code == 0, result.output
    assert "2 documents rendered" in result.output and out.read_text().count("class='sf-doc'") == 2
    missing = runner.invoke(app, ["render", str(tiny_frames_trf), str(tmp_path / "nope.txt"), str(out)])
    assert missing.exit_code == 1 and "nope.txt" in missing.output
    wrong_in = tmp_path / "docs.csv"
    wrong_in.write_text("a,b\n")
    result = runner.invoke(app, ["render", str(tiny_frames_trf), str(wrong_in), str(out)])
    assert result.exit_code == 1 and ".txt or .spacy" in result.output
    result = runner.invoke(app, ["render", str(tiny_frames_trf), str(source), str(tmp_path / "out.png")])
    assert result.exit_code == 1 and ".html" in result.output


@pytest.mark.slow
# CI installs chromium (.ci/run), so there the test never skips
@pytest.mark.skipif(shutil.which("chromium") is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_a_real_browser_shows_the_frames(parsed, tmp_path):
    _, docs = parsed
    page = tmp_path / "parses.html"
    page.write_text(render(docs), encoding="utf8")
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    frames = {frame.label_ for doc in docs for frame in doc._.frames}
    assert frames and all(name in dom for name in frames)
    assert dom.count("sf-doc") >= len(docs)
