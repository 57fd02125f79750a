"""The page of `spacy-frames serve` (GET /) and the HTML that POST /render answers.

The page is self-contained (no CDN): a textarea and a button; the parse comes from
POST /render as HTML, drawn by `spacy_frames.render` (the displaCy blocks of
`spacy-frames render`) with each frame's top-k ranking under the blocks. `/?text=...`
parses that text on load (links, headless screenshots).
"""

import html as html_lib
from typing import List

from spacy.tokens import Doc

from ..render import render_doc

TOP_K = 5


def ranking_table(doc: Doc, top_k: int = TOP_K) -> str:
    """Each target's frame ranking (top k with scores) and its frame elements, as a table."""
    rows = []
    for span in doc._.frames:
        ranking = (span._.frame_ranking or [])[:top_k]
        cells = ", ".join(
            f"<b>{_esc(name)}</b> {score:.2f}" if i == 0 else f"{_esc(name)} {score:.2f}"
            for i, (name, score) in enumerate(ranking)
        )
        elements = "; ".join(f"{_esc(fe.label_)}: {_esc(fe.text)}" for fe in span._.frame_elements)
        rows.append(
            f"<tr><td>{_esc(span.text)}</td><td>{_esc(span._.lexical_unit or '')}</td>"
            f"<td>{cells or _esc(span.label_)}</td><td>{elements}</td></tr>"
        )
    if not rows:
        return ""
    head = "<tr><th>target</th><th>lexical unit</th><th>frames (top %d, score)</th><th>frame elements</th></tr>"
    return f"<table class='sf-ranking'>{head % top_k}{''.join(rows)}</table>"


def render_fragment(docs: List[Doc]) -> str:
    """POST /render's answer: per doc, `render_doc`'s blocks and notes, then its rankings."""
    return "\n<hr/>\n".join(render_doc(doc) + ranking_table(doc) for doc in docs)


def _esc(text: str) -> str:
    return html_lib.escape(text, quote=True)


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__ · spacy-frames</title>
<style>
body{font-family:sans-serif;margin:1.5em;max-width:1150px}
textarea{width:100%;height:7em;font-size:1em;box-sizing:border-box}
button{font-size:1em;padding:.3em 1.2em;margin:.4em 0}
#status{color:#555;margin-left:1em} #status.error{color:#b00020}
.sf-text{color:#555} table.sf-ranking{border-collapse:collapse;margin:.8em 0}
table.sf-ranking td,table.sf-ranking th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
</style></head>
<body>
<h1>__TITLE__</h1>
<form id="form">
<label for="text">Text (one document; Ctrl+Enter parses)</label>
<textarea id="text" name="text" autofocus></textarea>
<div><button id="parse" type="submit">Parse</button><span id="status"></span></div>
</form>
<div id="result"></div>
<script>
const form = document.getElementById("form"), box = document.getElementById("text");
const status = document.getElementById("status"), result = document.getElementById("result");
async function parse() {
  status.className = ""; status.textContent = "parsing…";
  try {
    const response = await fetch("/render", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({text: box.value})});
    if (!response.ok) {
      const body = await response.json().catch(() => ({detail: response.statusText}));
      throw new Error(response.status + ": " + body.detail);
    }
    result.innerHTML = await response.text();
    status.textContent = "";
    document.body.dataset.parsed = "yes";
  } catch (err) {
    status.className = "error"; status.textContent = String(err.message || err);
  }
}
form.addEventListener("submit", (event) => { event.preventDefault(); parse(); });
box.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); parse(); }
});
const given = new URLSearchParams(window.location.search).get("text");
if (given) { box.value = given; parse(); }
</script>
</body></html>
"""
