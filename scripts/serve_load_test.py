"""Load test of `spacy-frames serve` (the serve-load-test command): spacy_frames.tools.serve_load.

python scripts/serve_load_test.py MODEL SENTENCES.conll OUTPUT.json [--requests 1000] [--clients 8]
"""

import json
import sys
from pathlib import Path

import typer


def main(
    model: str = typer.Argument(..., help="Pipeline: installed package name or path"),
    sentences: Path = typer.Argument(..., help="open-sesame CoNLL file whose sentences are sent (held out)"),
    output: Path = typer.Argument(..., help="JSON report"),
    requests: int = typer.Option(1000, "--requests", help="Requests to send, one sentence each"),
    clients: int = typer.Option(8, "--clients", help="Concurrent clients"),
    timeout: float = typer.Option(1800.0, "--timeout", help="Seconds the clients may take in all"),
    batch_size: int = typer.Option(32, "--batch-size"),
    in_process: bool = typer.Option(
        False, "--in-process", help="Serve in a thread of this process, not `spacy-frames serve`"
    ),
    batch_wait_ms: float = typer.Option(
        None, "--batch-wait-ms", help="The server's wait for more requests (default: serve's)"
    ),
):
    from spacy_frames.tools.serve_load import BATCH_WAIT_S, load_test, read_sentences

    report = load_test(
        model,
        read_sentences(sentences),
        n_requests=requests,
        n_clients=clients,
        timeout_s=timeout,
        batch_size=batch_size,
        batch_wait_s=BATCH_WAIT_S if batch_wait_ms is None else batch_wait_ms / 1000,
        in_process=in_process,
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf8")
    serve, annotate = report["serve"], report["annotate"]
    typer.echo(
        f"{serve['succeeded']}/{serve['requests']} requests from {serve['clients']} clients: "
        f"{serve['mean_batch_texts']} texts per batch, p50 {serve['latency_p50_s']} s, p95 {serve['latency_p95_s']} s, {serve['words_per_second']} words/s "
        f"(annotate: {annotate['words_per_second']} words/s, "
        f"{report['annotate_batches_of_clients']['words_per_second']} in batches of {serve['clients']}); refusals {'ok' if report['refusals']['ok'] else 'FAILED'}"
    )
    if not report["ok"]:
        sys.exit(f"✘ the load test failed: see {output}")
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)
