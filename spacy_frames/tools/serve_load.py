"""Load test and screenshot of `spacy-frames serve` (the serve-load-test and serve-page
project commands: scripts/serve_load_test.py, scripts/serve_page.py).

`load_test` loads a pipeline, serves it on loopback (a free port) in this process, sends
`n_requests` one-text requests from `n_clients` concurrent clients (each its own
keep-alive connection), all within `timeout_s`, and reports p50/p95 latency and words/s;
then checks that oversized and malformed requests get their 4xx and that the server still
answers after them; then, with the server stopped, times `spacy-frames annotate`
(`annotate_corpus`, one process) on the same texts with the same pipeline. Words are
whitespace-separated tokens (the FrameNet sentences are tokenised, space-joined).
"""

import http.client
import json
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple
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


def load_test(
    model: str,
    sentences: List[str],
    n_requests: int = 1000,
    n_clients: int = 8,
    timeout_s: float = 1800.0,
    batch_size: int = 32,
    limits: Optional[ServeLimits] = None,
    batch_wait_s: float = BATCH_WAIT_S,
) -> Dict:
    """The report of the module docstring; `ok` is False on any failure."""
    from ..extensions import install_extensions
    from .model_check import load_pipeline

    if not sentences:
        raise ValueError("No sentences to send")
    install_extensions()
    limits = limits or ServeLimits()
    nlp = load_pipeline(model)
    texts = [sentences[i % len(sentences)] for i in range(n_requests)]
    app = create_app(nlp, model, limits, batch_size=batch_size, batch_wait_s=batch_wait_s)
    with BackgroundServer(app) as server:
        warm = connect(server.url)
        post(warm, "/parse", b'{"text": "Warm up ."}')
        warm.close()
        before = app.state.worker.stats()["batch_texts"]
        served = run_clients(server.url, texts, n_clients, timeout_s)
        after = app.state.worker.stats()["batch_texts"]
        refusals = check_refusals(server.url, limits)
    # the worker's batches during the clients' requests (texts per batch -> batches)
    batches = {n: k - before.get(n, 0) for n, k in after.items() if k > before.get(n, 0)}
    n_batches = sum(batches.values())
    served["batches"] = n_batches
    served["mean_batch_texts"] = (
        round(sum(int(n) * k for n, k in batches.items()) / n_batches, 2) if n_batches else None
    )
    served["batch_texts"] = batches
    annotate = annotate_words_per_second(nlp, texts, batch_size)
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
        "annotate": annotate,
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
