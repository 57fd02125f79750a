"""Screenshot an HTML file with headless chromium (the render-sample command's PNG).

python scripts/screenshot.py PAGE.html OUT.png [--width 1200] [--height 1600]
"""

import shutil
import subprocess
import sys
from pathlib import Path

import typer


def main(page: Path, output: Path, width: int = 1200, height: int = 1600):
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        sys.exit("No chromium found: install it (apt-get install chromium) to write the screenshot.")
    if not page.is_file():
        sys.exit(f"{page} not found")
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--screenshot={output.resolve()}",
            page.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)
