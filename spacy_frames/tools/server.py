"""`spacy-frames serve MODEL`: the pipeline loaded once behind an HTTP API (FastAPI on
uvicorn), with a page to type text and look at its parse.

    POST /parse   {"text": "..."} -> the record `spacy-frames annotate` writes for it;
                  {"texts": [...]} -> a list of them, in order (id: the 1-based position)
    POST /render  the same body -> an HTML fragment (spacy_frames.render, plus each frame's
                  top-k ranking)
    GET  /health  {"status": "ok", "model_loaded": true}; 503 when the parse worker died
    GET  /meta    model name and version, versions, components, active frame inventory
    GET  /        the page

One worker thread owns the pipeline and is the only caller of `nlp.pipe`: requests put
their texts on a queue, and the worker takes everything waiting (up to `batch_size` texts
at a time, whole requests) into one `nlp.pipe` call, so concurrent requests share batches
and the model is never called from two threads at once. After the first waiting request
it waits up to `batch_wait_s` for more (clients whose answers just went out are sending
their next texts), so a batch is not cut short by a request a few milliseconds late; it
counts the batches it runs (GET /health). When a pooled batch fails, each of
its requests is run again alone, so one request's failure is never another's. Limits are
checked before anything reaches the queue; every refusal is a JSON 4xx with `detail` and
the `limit` or `field` it concerns. FastAPI and uvicorn are imported only here (the `serve`
extra).
"""

import asyncio
import html as html_lib
import json
import queue
import threading
import time
from collections import Counter
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import install_extensions
from .records import doc_to_record

# how long the worker waits for more requests after the first (see the module docstring)
BATCH_WAIT_S = 0.01


@dataclass
class ServeLimits:
    """What one request may carry; each is a `spacy-frames serve` option."""

    max_body_bytes: int = 1_000_000
    max_texts: int = 64
    max_chars: int = 20_000


class RequestError(Exception):
    """A refused request: HTTP `status` and the JSON body `{"detail": ..., **extra}`."""

    def __init__(self, status: int, detail: str, **extra: Any):
        super().__init__(detail)
        self.status, self.detail, self.extra = status, detail, extra


@dataclass
class _Job:
    texts: List[str]
    convert: Callable[[List[Doc]], Any]
    future: Future


class ParseWorker:
    """The one thread that calls the pipeline (see the module docstring)."""

    def __init__(self, nlp: Language, batch_size: int = 32, batch_wait_s: float = BATCH_WAIT_S):
        if batch_wait_s < 0:
            raise ValueError(f"batch_wait_s must be >= 0, got {batch_wait_s}")
        self.nlp, self.batch_size, self.batch_wait_s = nlp, max(1, batch_size), batch_wait_s
        self.batch_sizes: Counter = Counter()  # texts per nlp.pipe call -> calls
        self.jobs: "queue.Queue[Optional[_Job]]" = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="spacy-frames-parse", daemon=True)
        self.thread.start()

    def submit(self, texts: List[str], convert: Callable[[List[Doc]], Any]) -> Future:
        """Parse `texts` in the worker; the future gets `convert(docs)`."""
        future: Future = Future()
        self.jobs.put(_Job(list(texts), convert, future))
        return future

    def alive(self) -> bool:
        return self.thread.is_alive()

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=30)

    def stats(self) -> Dict[str, Any]:
        """The batches run so far: how many, how many texts, and texts per batch."""
        batches, texts = sum(self.batch_sizes.values()), sum(n * k for n, k in self.batch_sizes.items())
        return {
            "batches": batches,
            "texts": texts,
            "mean_batch_texts": round(texts / batches, 2) if batches else None,
            "batch_texts": {str(n): k for n, k in sorted(self.batch_sizes.items())},
        }

    def _take(self) -> Tuple[List[_Job], bool]:
        """One waiting job (blocking), then every other one that is waiting or arrives
        within `batch_wait_s` while the texts fit in a batch; True when asked to stop."""
        first = self.jobs.get()
        if first is None:
            return [], True
        jobs, n_texts = [first], len(first.texts)
        deadline = time.monotonic() + self.batch_wait_s
        while n_texts < self.batch_size:
            try:
                job = self.jobs.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if job is None:
                self.jobs.put(None)  # stop after this batch
                break
            jobs.append(job)
            n_texts += len(job.texts)
        return jobs, False

    def _run(self) -> None:
        while True:
            jobs, stop = self._take()
            if stop:
                return
            jobs = [job for job in jobs if job.future.set_running_or_notify_cancel()]
            try:
                self._parse(jobs)
            except Exception:
                for job in jobs:  # isolate the failing request
                    try:
                        self._parse([job])
                    except Exception as err:
                        job.future.set_exception(err)

    def _parse(self, jobs: List[_Job]) -> None:
        texts = [text for job in jobs for text in job.texts]
        docs = list(self.nlp.pipe(texts, batch_size=self.batch_size))
        self.batch_sizes[len(texts)] += 1
        results, start = [], 0
        for job in jobs:
            results.append(job.convert(docs[start : start + len(job.texts)]))
            start += len(job.texts)
        for job, result in zip(jobs, results):
            job.future.set_result(result)


def records(docs: List[Doc]) -> List[Dict]:
    """`spacy-frames annotate`'s records; the id is the text's 1-based position."""
    return [doc_to_record(doc, str(i + 1)) for i, doc in enumerate(docs)]


def check_body(body: bytes, limits: ServeLimits) -> Tuple[List[str], bool]:
    """The texts of a request body and whether it was one `text`; RequestError if refused."""
    if len(body) > limits.max_body_bytes:
        raise _too_large_body(limits)
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise RequestError(400, f"The body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise RequestError(422, f"The body must be a JSON object, not {_json_type(data)}", field="body")
    unknown = sorted(set(data) - {"text", "texts"})
    if unknown or ("text" in data) == ("texts" in data):
        detail = 'Give exactly one of "text" (a string) or "texts" (a list of strings)'
        raise RequestError(422, detail + (f"; unknown fields: {unknown}" if unknown else ""), field="body")
    if "text" in data:
        texts, fields = [data["text"]], ["text"]
    else:
        texts = data["texts"]
        if not isinstance(texts, list):
            raise RequestError(422, f'"texts" must be a list of strings, not {_json_type(texts)}', field="texts")
        if not texts:
            raise RequestError(422, '"texts" is empty: give at least one text', field="texts", limit="min_texts")
        if len(texts) > limits.max_texts:
            detail = f"{len(texts)} texts in one request: at most {limits.max_texts} (--max-texts)"
            raise RequestError(413, detail, limit="max_texts", max=limits.max_texts)
        fields = [f"texts[{i}]" for i in range(len(texts))]
    for text, field in zip(texts, fields):
        if not isinstance(text, str):
            raise RequestError(422, f"{field} must be a string, not {_json_type(text)}", field=field)
        if not _encodable(text):
            raise RequestError(422, f"{field} is not valid Unicode (a lone surrogate)", field=field)
        if len(text) > limits.max_chars:
            detail = f"{field} has {len(text)} characters: at most {limits.max_chars} (--max-chars)"
            raise RequestError(413, detail, limit="max_chars", max=limits.max_chars, field=field)
    return texts, "text" in data


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _too_large_body(limits: ServeLimits) -> RequestError:
    detail = f"The request body is over {limits.max_body_bytes} bytes (--max-body-bytes)"
    return RequestError(413, detail, limit="max_body_bytes", max=limits.max_body_bytes)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def model_meta(nlp: Language, model: str) -> Dict[str, Any]:
    """What GET /meta answers: the pipeline's name, version and components, the versions
    running it, and the active frame inventory (as `meta.json` reports it)."""
    import spacy

    from ..about import __version__

    meta = nlp.meta
    inventory = meta.get("frame_inventory")
    if any(nlp.get_pipe_meta(name).factory == "frame_identifier" for name in nlp.component_names):
        from ..pipeline.inventory_ops import find_frame_identifier, inventory_meta

        inventory = inventory_meta(find_frame_identifier(nlp))  # what is active now
    return {
        "model": model,
        "name": f"{meta.get('lang', nlp.lang)}_{meta.get('name', 'pipeline')}",
        "version": meta.get("version"),
        "spacy_version_required": meta.get("spacy_version"),
        "versions": {"spacy": spacy.__version__, "spacy_frames": __version__},
        "components": list(nlp.pipe_names),
        "frame_inventory": inventory,
    }


async def _read_body(request, limits: ServeLimits) -> bytes:
    """The body, refused (413) as soon as it is over the limit, before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise _too_large_body(limits)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limits.max_body_bytes:
            raise _too_large_body(limits)
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(
    nlp: Language,
    model: str = "",
    limits: Optional[ServeLimits] = None,
    batch_size: int = 32,
    batch_wait_s: float = BATCH_WAIT_S,
):
    """The FastAPI app serving `nlp` (one ParseWorker, started now; stopped at shutdown)."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, Request
    from fastapi.responses import HTMLResponse, JSONResponse

    from .server_page import PAGE, render_fragment

    install_extensions()
    limits = limits or ServeLimits()
    worker = ParseWorker(nlp, batch_size, batch_wait_s)
    meta = model_meta(nlp, model)

    @asynccontextmanager
    async def lifespan(app):
        yield
        worker.stop()

    app = FastAPI(title="spacy-frames", version=meta["versions"]["spacy_frames"], lifespan=lifespan)
    app.state.worker, app.state.limits = worker, limits

    @app.exception_handler(RequestError)
    async def refused(request: Request, err: RequestError):
        return JSONResponse({"detail": err.detail, **err.extra}, status_code=err.status)

    async def run(request: Request, convert: Callable[[List[Doc]], Any]):
        texts, single = check_body(await _read_body(request, limits), limits)
        if not worker.alive():
            raise RequestError(503, "The parse worker has stopped: restart the server")
        result = await asyncio.wrap_future(worker.submit(texts, convert))
        return result, single

    @app.post("/parse")
    async def parse(request: Request):
        result, single = await run(request, records)
        return JSONResponse(result[0] if single else result)

    @app.post("/render")
    async def render(request: Request):
        result, _ = await run(request, render_fragment)
        return HTMLResponse(result)

    @app.get("/health")
    async def health():
        alive = worker.alive()
        body = {"status": "ok" if alive else "error", "model_loaded": True, "worker_alive": alive, **worker.stats()}
        return JSONResponse(body, status_code=200 if alive else 503)

    @app.get("/meta")
    async def get_meta():
        return {**meta, "limits": asdict(limits), "batch_size": worker.batch_size, "batch_wait_s": worker.batch_wait_s}

    @app.get("/", response_class=HTMLResponse)
    async def page():
        return HTMLResponse(PAGE.replace("__TITLE__", html_lib.escape(meta["name"])))

    return app


class BackgroundServer:
    """uvicorn serving `app` on `host` in a thread (port 0: a free one), for tests and
    the load test: `with BackgroundServer(app) as server: server.url`."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, timeout: float = 60.0):
        import uvicorn

        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        self.server, self.host, self.timeout = uvicorn.Server(config), host, timeout
        self.thread = threading.Thread(target=self.server.run, name="spacy-frames-serve", daemon=True)
        self.url = ""

    def __enter__(self) -> "BackgroundServer":
        import time

        self.thread.start()
        deadline = time.monotonic() + self.timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"The server did not start on {self.host} within {self.timeout:.0f} s")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://{self.host}:{port}"
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=self.timeout)
