"""Load test and screenshot of `spacy-frames serve` (the serve-load-test and serve-page
project commands: scripts/serve_load_test.py, scripts/serve_page.py).

`load_test` serves a pipeline on loopback (a free port) with `spacy-frames serve` in a
process of its own, as a user runs it (`in_process`: in a thread of this one instead),
sends `n_requests` one-text requests from `n_clients` concurrent clients (threads of this
process, each its own keep-alive connection), all within `timeout_s`, and reports p50/p95
latency, words/s and the batches the server's worker ran; then checks that oversized and
malformed requests get their 4xx and that the server still answers after them; then, with
the server stopped, times `spacy-frames annotate` (`annotate_corpus`, one process) on the
same texts with the same pipeline, at the batch size and at one batch per round of the
clients (`n_clients` texts: the most a round of one-text requests can give the server).
Words are whitespace-separated tokens (the FrameNet sentences are tokenised, space-joined).
"""

import http.client
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple
from urllib.parse import quote, urlsplit

from .server import BATCH_WAIT_S, BackgroundServer, ServeLimits, create_app


def read_sentences(conll: Path, limit: Optional[int] = None) -> List[str]:
    """The distinct sentences of an open-sesame CoNLL file, in file order."""
    from ..corpora.framenet_sentences import iter_open_sesame_sentences

    seen: Dict[str, None] = {}
    for sentence in iter_open_sesame_sentences(conll):
        seen.setdefault(sentence.text, None)
        if limit and len(seen) >= limit:
            break
    return list(seen)


def connect(url: str, timeout: float = 60.0) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)


def post(conn: http.client.HTTPConnection, path: str, body: bytes) -> Tuple[int, bytes]:
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def _percentile(values: List[float], q: float) -> Optional[float]:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_clients(url: str, texts: List[str], n_clients: int, timeout_s: float) -> Dict:
    """Send one request per text from `n_clients` threads (request i by client i mod n);
    a client stops at the deadline. Latencies in seconds."""
    deadline = time.monotonic() + timeout_s
    latencies: List[float] = []
    failures: List[str] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        conn = connect(url, timeout=max(1.0, timeout_s))
        try:
            for text in texts[index::n_clients]:
                if time.monotonic() > deadline:
                    with lock:
                        failures.append("deadline")
                    return
                start = time.perf_counter()
                try:
                    status, body = post(conn, "/parse", json.dumps({"text": text}).encode())
                    ok = status == 200 and json.loads(body)["text"] == text
                    error = f"{status}: {body[:200]!r}"
                except (OSError, http.client.HTTPException, ValueError, KeyError) as err:
                    ok, error = False, repr(err)
                    conn.close()
                with lock:
                    if ok:
                        latencies.append(time.perf_counter() - start)
                    else:
                        failures.append(error)
        finally:
            conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(n_clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout_s + 30)
    wall = time.perf_counter() - started
    words = sum(len(text.split()) for text in texts)
    return {
        "requests": len(texts),
        "clients": n_clients,
        "succeeded": len(latencies),
        "failed": len(failures),
        "failures": failures[:10],
        "wall_s": round(wall, 3),
        "latency_p50_s": _round(_percentile(latencies, 0.5)),
        "latency_p95_s": _round(_percentile(latencies, 0.95)),
        "latency_max_s": _round(max(latencies, default=None)),
        "words": words,
        "words_per_second": round(words / wall, 1) if wall and not failures else None,
    }


def refusal_cases(limits: ServeLimits) -> List[Tuple[str, bytes, int]]:
    """(name, body, expected status) for every limit and malformed shape."""
    return [
        ("body over max_body_bytes", json.dumps({"text": "a " * limits.max_body_bytes}).encode(), 413),
        ("texts over max_texts", json.dumps({"texts": ["a"] * (limits.max_texts + 1)}).encode(), 413),
        ("text over max_chars", json.dumps({"text": "a" * (limits.max_chars + 1)}).encode(), 413),
        ("empty texts", b'{"texts": []}', 422),
        ("bad JSON", b'{"text": "unclosed', 400),
        ("text not a string", b'{"text": 42}', 422),
        ("texts not a list", b'{"texts": "a"}', 422),
        ("body not an object", b'["a"]', 422),
    ]


def check_refusals(url: str, limits: ServeLimits) -> Dict:
    """Each refusal case's status, and whether a normal request succeeds after each."""
    results = []
    for name, body, expected in refusal_cases(limits):
        conn = connect(url)
        try:
            status, answer = post(conn, "/parse", body)
            detail = json.loads(answer).get("detail")
        except (OSError, http.client.HTTPException, ValueError) as err:
            status, detail = None, repr(err)
        finally:
            conn.close()
        conn = connect(url)
        try:
            after, _ = post(conn, "/parse", b'{"text": "The server still answers ."}')
        except (OSError, http.client.HTTPException) as err:
            after = repr(err)
        finally:
            conn.close()
        results.append(
            {"case": name, "status": status, "expected": expected, "detail": detail, "serving_after": after == 200}
        )
    return {"cases": results, "ok": all(r["status"] == r["expected"] and r["serving_after"] for r in results)}


def annotate_words_per_second(nlp, texts: List[str], batch_size: int) -> Dict:
    """`spacy-frames annotate` (annotate_corpus, one process) on `texts` as a .txt corpus."""
    from .annotate_corpus import annotate_corpus

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "texts.txt"
        source.write_text("\n".join(texts) + "\n", encoding="utf8")
        start = time.perf_counter()
        annotate_corpus(nlp, str(source), Path(tmp) / "records.jsonl", batch_size=batch_size, progress=False)
        wall = time.perf_counter() - start
    words = sum(len(text.split()) for text in texts)
    return {
        "documents": len(texts),
        "words": words,
        "wall_s": round(wall, 3),
        "words_per_second": round(words / wall, 1),
    }


def worker_stats(url: str) -> Dict:
    """The server's worker batches (GET /health)."""
    conn = connect(url)
    try:
        conn.request("GET", "/health")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@contextmanager
def serving(
    model: str, limits: ServeLimits, batch_size: int, batch_wait_s: float, in_process: bool, timeout: float = 300.0
) -> Iterator[str]:
    """The URL of `model` served on loopback: by `spacy-frames serve` in its own process,
    or (`in_process`) by uvicorn in a thread of this one; stopped on exit."""
    if in_process:
        from .model_check import load_pipeline

        app = create_app(load_pipeline(model), model, limits, batch_size=batch_size, batch_wait_s=batch_wait_s)
        with BackgroundServer(app) as server:
            yield server.url
        return
    port = free_port()
    command = [sys.executable, "-m", "spacy_frames", "serve", str(model), "--host", "127.0.0.1", "--port", str(port)]
    command += ["--batch-size", str(batch_size), "--batch-wait-ms", str(batch_wait_s * 1000)]
    command += ["--max-body-bytes", str(limits.max_body_bytes), "--max-texts", str(limits.max_texts)]
    command += ["--max-chars", str(limits.max_chars)]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
            while True:
                try:
                    if worker_stats(url).get("status") == "ok":
                        break
                except (OSError, http.client.HTTPException, ValueError):
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(
                        f"spacy-frames serve did not start: {log.read()[-2000:].decode(errors='replace')}"
                    )
                time.sleep(0.2)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def load_test(
    model: str,
    sentences: List[str],
    n_requests: int = 1000,
    n_clients: int = 8,
    timeout_s: float = 1800.0,
    batch_size: int = 32,
    limits: Optional[ServeLimits] = None,
    batch_wait_s: float = BATCH_WAIT_S,
    in_process: bool = False,
) -> Dict:
    """The report of the module docstring; `ok` is False on any failure."""
    from ..extensions import install_extensions
    from .model_check import load_pipeline

    if not sentences:
        raise ValueError("No sentences to send")
    install_extensions()
    limits = limits or ServeLimits()
    texts = [sentences[i % len(sentences)] for i in range(n_requests)]
    with serving(model, limits, batch_size, batch_wait_s, in_process) as url:
        warm = connect(url)
        post(warm, "/parse", b'{"text": "Warm up ."}')
        warm.close()
        before = worker_stats(url)["batch_texts"]
        served = run_clients(url, texts, n_clients, timeout_s)
        after = worker_stats(url)["batch_texts"]
        refusals = check_refusals(url, limits)
    # the worker's batches during the clients' requests (texts per batch -> batches)
    batches = {n: k - before.get(n, 0) for n, k in after.items() if k > before.get(n, 0)}
    n_batches = sum(batches.values())
    served["batches"] = n_batches
    served["mean_batch_texts"] = (
        round(sum(int(n) * k for n, k in batches.items()) / n_batches, 2) if n_batches else None
    )
    served["batch_texts"] = batches
    nlp = load_pipeline(model)
    annotate = annotate_words_per_second(nlp, texts, batch_size)
    annotate_rounds = annotate_words_per_second(nlp, texts, n_clients)
    ratio = served["words_per_second"] / annotate["words_per_second"] if served["words_per_second"] else None
    return {
        "model": model,
        "pipeline": f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}",
        "version": nlp.meta.get("version"),
        "batch_size": batch_size,
        "batch_wait_s": batch_wait_s,
        "limits": limits.__dict__,
        "distinct_sentences": len(set(texts)),
        "serve": served,
        "server": "in this process (a thread)" if in_process else "spacy-frames serve (its own process)",
        "annotate": annotate,
        "annotate_batches_of_clients": {**annotate_rounds, "batch_size": n_clients},
        "serve_over_annotate_words_per_second": _round(ratio, 3),
        "refusals": refusals,
        "ok": served["failed"] == 0 and served["succeeded"] == n_requests and refusals["ok"],
    }


def find_browser() -> Optional[str]:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def browse(url: str, text: str, *, screenshot: Optional[Path] = None, budget_ms: int = 30000) -> str:
    """Headless chromium on the page at `url` with `text` parsed on load: the DOM after it
    (and a screenshot when given)."""
    browser = find_browser()
    if browser is None:
        raise FileNotFoundError("No chromium found: install it (apt-get install chromium)")
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    command += [f"--virtual-time-budget={budget_ms}", "--window-size=1200,1400"]
    command += [f"--screenshot={Path(screenshot).resolve()}"] if screenshot else ["--dump-dom"]
    done = subprocess.run(
        [*command, f"{url}/?text={quote(text)}"], capture_output=True, text=True, timeout=budget_ms / 1000 + 120
    )
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-1000:]}")
    return done.stdout


def screenshot_page(model: str, output: Path, text: str) -> Path:
    """Serve `model` on loopback and write the page's screenshot with `text` parsed."""
    from ..extensions import install_extensions
    from .model_check import load_pipeline

    install_extensions()
    app = create_app(load_pipeline(model), model)
    output.parent.mkdir(parents=True, exist_ok=True)
    with BackgroundServer(app) as server:
        browse(server.url, text, screenshot=output)
    if not output.is_file():
        raise RuntimeError(f"chromium wrote no screenshot at {output}")
    return output


def _round(value: Optional[float], digits: int = 4) -> Optional[float]:
    return None if value is None else round(value, digits)
