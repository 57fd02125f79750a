"""`spacy-frames serve`: the API's records, limits and errors (a blank pipeline, fast), the same
records as `annotate` and concurrent clients on a real uvicorn (the tiny en_frames_trf), the
page in headless chromium, and the load-test script on a few requests."""

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import spacy
import srsly
from framenet_paths import FN17_CONLL

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from spacy_frames.extensions import install_extensions  # noqa: E402
from spacy_frames.tools.annotate_corpus import annotate_corpus  # noqa: E402
from spacy_frames.tools.serve_load import browse, connect, find_browser, post, run_clients  # noqa: E402
from spacy_frames.tools.server import BackgroundServer, ParseWorker, ServeLimits, create_app  # noqa: E402

TEXTS = ["She gave him a gift .", "They bought a car and we walked home ."]
LIMITS = ServeLimits(max_body_bytes=2_000, max_texts=4, max_chars=100)
SCRIPTS = Path(__file__).parents[1] / "scripts"


@pytest.fixture(scope="module")
def blank_client():
    install_extensions()
    return TestClient(create_app(spacy.blank("en"), "blank:en", LIMITS, batch_size=4))


def annotate_records(nlp, texts, tmp_path):
    source, output = tmp_path / "texts.txt", tmp_path / "records.jsonl"
    source.write_text("\n".join(texts) + "\n", encoding="utf8")
    annotate_corpus(nlp, str(source), output, progress=False)
    # the standard library's parser, as the client's: srsly's reads 0.7906 as 0.7906000000000001
    return [json.loads(line) for line in output.read_text(encoding="utf8").splitlines()]


def test_one_text_and_a_list_give_annotate_records(blank_client, tmp_path):
    one = blank_client.post("/parse", json={"text": TEXTS[0]})
    assert one.status_code == 200
    many = blank_client.post("/parse", json={"texts": TEXTS})
    assert many.status_code == 200
    expected = annotate_records(spacy.blank("en"), TEXTS, tmp_path)
    assert one.json() == expected[0] and many.json() == expected


@pytest.mark.parametrize(
    "body,status,key,value",
    [
        (json.dumps({"text": "a " * 1_500}), 413, "limit", "max_body_bytes"),
        (json.dumps({"texts": ["a"] * 5}), 413, "limit", "max_texts"),
        (json.dumps({"texts": ["a", "b" * 101]}), 413, "field", "texts[1]"),
        (json.dumps({"texts": []}), 422, "field", "texts"),
        (json.dumps({"text": 3}), 422, "field", "text"),
        (json.dumps({"texts": ["a", None]}), 422, "field", "texts[1]"),
        (json.dumps({"texts": "a"}), 422, "field", "texts"),
        (json.dumps({"text": "a", "texts": ["b"]}), 422, "field", "body"),
        (json.dumps({"txt": "a"}), 422, "field", "body"),
        (json.dumps(["a"]), 422, "field", "body"),
        ('{"texts": ["a", "\\ud800"]}', 422, "field", "texts[1]"),
    ],
)
def test_every_limit_and_wrong_shape_is_a_4xx_and_serving_goes_on(blank_client, body, status, key, value):
    refused = blank_client.post("/parse", content=body.encode(), headers={"Content-Type": "application/json"})
    assert refused.status_code == status, refused.text
    answer = refused.json()
    assert answer[key] == value and answer["detail"]
    if key == "limit" and value != "max_body_bytes":
        assert f"--{value.replace('_', '-')}" in answer["detail"]
    assert blank_client.post("/parse", json={"text": "still serving"}).json()["text"] == "still serving"


def test_bad_json_is_a_400_with_the_parsers_reason(blank_client):
    refused = blank_client.post("/parse", content=b'{"text": "unclosed', headers={"Content-Type": "application/json"})
    assert refused.status_code == 400
    assert "not valid JSON" in refused.json()["detail"] and "char" in refused.json()["detail"]
    assert blank_client.post("/render", content=b"\xff").status_code == 400
    assert blank_client.post("/parse", content=b"[" * 1_500).status_code == 400  # too deep for the parser


def test_health_meta_and_page(blank_client):
    health = blank_client.get("/health").json()
    assert {key: health[key] for key in ("status", "model_loaded", "worker_alive")} == {
        "status": "ok",
        "model_loaded": True,
        "worker_alive": True,
    }
    assert health["texts"] >= health["batches"] >= 0
    meta = blank_client.get("/meta").json()
    assert meta["model"] == "blank:en" and meta["components"] == [] and meta["frame_inventory"] is None
    assert meta["versions"]["spacy"] == spacy.__version__ and meta["limits"]["max_texts"] == 4
    page = blank_client.get("/")
    assert page.status_code == 200 and "<textarea" in page.text and "/render" in page.text
    assert "http" not in page.text.split("<script>")[1]  # self-contained: nothing fetched from elsewhere
    fragment = blank_client.post("/render", json={"text": "<b>x</b>"}).text
    assert "&lt;b&gt;" in fragment and "no frames" in fragment


@pytest.fixture(scope="module")
def tiny_nlp(tiny_frames_trf):
    install_extensions()
    return spacy.load(tiny_frames_trf)


def test_the_worker_waits_for_late_requests_and_counts_its_batches():
    """With a wait, requests arriving within it share the first one's batch (up to
    batch_size texts); /health reports the batches."""
    worker = ParseWorker(spacy.blank("en"), batch_size=4, batch_wait_s=1.0)
    try:
        first = worker.submit(["a b"], len)
        time.sleep(0.1)
        later = [worker.submit([f"t{i}"], len) for i in range(4)]  # the 4th does not fit
        assert [f.result(timeout=30) for f in (first, *later)] == [1, 1, 1, 1, 1]
        assert worker.stats()["batch_texts"] == {"4": 1, "1": 1} and worker.stats()["mean_batch_texts"] == 2.5
    finally:
        worker.stop()
    with pytest.raises(ValueError, match="batch_wait_s"):
        ParseWorker(spacy.blank("en"), batch_wait_s=-1)
    client = TestClient(create_app(spacy.blank("en"), "blank:en", LIMITS, batch_wait_s=0.01))
    client.post("/parse", json={"texts": TEXTS})
    health = client.get("/health").json()
    assert health["batches"] == 1 and health["texts"] == 2 and client.get("/meta").json()["batch_wait_s"] == 0.01


@pytest.mark.slow
def test_the_full_pipeline_serves_annotates_records(tiny_frames_trf, tiny_nlp, tmp_path):
    client = TestClient(create_app(tiny_nlp, str(tiny_frames_trf), LIMITS))
    served = client.post("/parse", json={"texts": TEXTS}).json()
    expected = annotate_records(spacy.load(tiny_frames_trf), TEXTS, tmp_path)
    assert served == expected and any(record["frames"] for record in served)
    assert client.post("/parse", json={"text": TEXTS[1]}).json() == {**expected[1], "id": "1"}
    meta = client.get("/meta").json()
    assert meta["components"] == tiny_nlp.pipe_names and "frame_identifier" in meta["components"]
    assert meta["frame_inventory"] and "release" in meta["frame_inventory"]
    fragment = client.post("/render", json={"texts": TEXTS}).text
    for record in served:
        for frame in record["frames"]:
            assert frame["frame"] in fragment and frame["ranking"][0][0] in fragment


@pytest.mark.slow
def test_a_real_server_answers_concurrent_clients(tiny_frames_trf, tiny_nlp):
    client = TestClient(create_app(tiny_nlp, str(tiny_frames_trf), LIMITS))
    bodies = [{"texts": TEXTS[: 1 + i % 2]} for i in range(20)]
    labels = lambda records: [[(f["start"], f["end"], f["frame"]) for f in r["frames"]] for r in records]
    expected = [labels(client.post("/parse", json=body).json()) for body in bodies]
    with BackgroundServer(create_app(tiny_nlp, str(tiny_frames_trf), LIMITS, batch_size=8), timeout=60) as server:
        assert server.url.startswith("http://127.0.0.1:")
        local = threading.local()

        def send(body):
            if not hasattr(local, "conn"):
                local.conn = connect(server.url, timeout=60)
            status, answer = post(local.conn, "/parse", json.dumps(body).encode())
            return status, json.loads(answer)

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(send, bodies, timeout=120))
        report = run_clients(server.url, [TEXTS[0]] * 8, n_clients=4, timeout_s=60)
    assert [status for status, _ in answers] == [200] * 20
    assert [labels(answer) for _, answer in answers] == expected
    assert report["succeeded"] == 8 and report["failed"] == 0 and report["latency_p95_s"] > 0


@pytest.mark.slow
# CI installs chromium (.ci/run), so there the test never skips
@pytest.mark.skipif(find_browser() is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_the_page_parses_a_sentence_in_a_browser(tiny_frames_trf, tiny_nlp, tmp_path):
    expected = TestClient(create_app(tiny_nlp, str(tiny_frames_trf))).post("/parse", json={"text": TEXTS[0]}).json()
    frames = [frame["frame"] for frame in expected["frames"]]
    assert frames
    with BackgroundServer(create_app(tiny_nlp, str(tiny_frames_trf)), timeout=60) as server:
        dom = browse(server.url, TEXTS[0])
        browse(server.url, TEXTS[0], screenshot=tmp_path / "page.png")
    assert 'data-parsed="yes"' in dom and "sf-doc" in dom and "sf-ranking" in dom
    assert all(name in dom for name in frames)
    assert (tmp_path / "page.png").stat().st_size > 1_000


@pytest.mark.slow
def test_the_load_test_script_on_a_few_requests(tiny_frames_trf, tmp_path):
    output = tmp_path / "serve_load_test.json"
    args = [tiny_frames_trf, FN17_CONLL, output, "--requests", 16, "--clients", 4, "--timeout", 300]
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "serve_load_test.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = srsly.read_json(output)
    assert report["ok"] and report["serve"]["succeeded"] == 16 and report["serve"]["clients"] == 4
    assert sum(int(n) * k for n, k in report["serve"]["batch_texts"].items()) == 16
    assert (
        report["server"].startswith("spacy-frames serve") and report["annotate_batches_of_clients"]["batch_size"] == 4
    )
    from spacy_frames.tools.serve_load import load_test, read_sentences

    threaded = load_test(
        str(tiny_frames_trf), read_sentences(FN17_CONLL, limit=4), n_requests=4, n_clients=2, in_process=True
    )
    assert threaded["ok"] and threaded["server"].startswith("in this process") and threaded["serve"]["batches"] >= 2
    assert report["serve"]["latency_p50_s"] <= report["serve"]["latency_p95_s"]
    assert report["annotate"]["words"] == report["serve"]["words"] and report["annotate"]["words_per_second"] > 0
    assert {case["status"] for case in report["refusals"]["cases"]} == {400, 413, 422}


def test_the_serve_command_binds_to_localhost_by_default_and_reports_a_missing_model(tmp_path):
    from typer.testing import CliRunner

    from spacy_frames.cli import app

    runner = CliRunner()
    usage = runner.invoke(app, ["serve", "--help"])
    assert usage.exit_code == 0 and "127.0.0.1" in usage.output and "--max-texts" in usage.output
    missing = runner.invoke(app, ["serve", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "nope" in missing.output
