"""Frame inventories a pipeline carries by release name ("framenet15", "framenet17").

frame_identifier owns them (saved in its directory as `releases`), so an installed pipeline
can switch releases with no project files: `spacy_frames.set_inventory(nlp, "framenet15")`.
A release stored from the inventory a pipeline was trained on keeps that training's frame
vectors (each definition's vector and its learned memory offset), so switching away and
back gives the same frames as before, whatever has happened to the definition encoder since
(its weights stored in float16); a release stored without them encodes its definitions
when it is switched to and inherits the memory from the active inventory (by FrameNet frame
ID, `carried_frames`).

Each release also names its data license, which `meta.json` reports for the active one.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy
import srsly

from ..inventory.frames import FrameInventory

# the data licenses of the FrameNet releases (see ../shared/README.md)
RELEASE_LICENSES: Dict[str, Dict[str, str]] = {
    "framenet15": {
        "name": "FrameNet 1.5",
        "url": "https://framenet.icsi.berkeley.edu",
        "license": "FrameNet 1.5 data license (research / non-commercial use)",
    },
    "framenet17": {
        "name": "FrameNet 1.7",
        "url": "https://framenet.icsi.berkeley.edu",
        "license": "CC BY 3.0",
    },
}


class StoredRelease:
    """One release: its inventory and, when stored from a trained pipeline, its frames'
    vectors as they were: `names` with their definition vectors (`base`) and learned
    memory (`memory`, None without frame memory)."""

    def __init__(self, inventory: FrameInventory, names: Optional[List[str]] = None, base=None, memory=None) -> None:
        self.inventory = inventory
        self.names = list(names or [])
        self.base = None if base is None else numpy.asarray(base, dtype="float32")
        self.memory = None if memory is None else numpy.asarray(memory, dtype="float32")
        for rows in (self.base, self.memory):
            if rows is not None and len(rows) != len(self.names):
                raise ValueError(f"{len(rows)} frame vectors for {len(self.names)} frames")

    def base_rows(self) -> Dict[str, numpy.ndarray]:
        return {} if self.base is None else dict(zip(self.names, self.base))

    def memory_rows(self) -> Dict[str, numpy.ndarray]:
        return {} if self.memory is None else dict(zip(self.names, self.memory))


class StoredReleases:
    """The releases a frame_identifier carries and which one is active (None: an inventory
    that is none of them, set by hand)."""

    def __init__(self) -> None:
        self.releases: Dict[str, StoredRelease] = {}
        self.active: Optional[str] = None

    def __contains__(self, name: str) -> bool:
        return name in self.releases

    def __getitem__(self, name: str) -> StoredRelease:
        if name not in self.releases:
            raise KeyError(
                f"No frame inventory release '{name}' in this pipeline; it carries "
                f"{sorted(self.releases) or 'none'} (a path to a frames.json or a FrameInventory also works)."
            )
        return self.releases[name]

    @property
    def names(self) -> List[str]:
        return sorted(self.releases)

    def add(self, name: str, release: StoredRelease) -> None:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"A release name is a plain name such as 'framenet17', got {name!r}")
        self.releases[name] = release

    # -- serialization ----------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {
            "active": self.active,
            "releases": {
                name: {
                    "inventory": r.inventory.to_dict(),
                    "names": r.names,
                    "base": _pack(r.base),
                    "memory": _pack(r.memory),
                }
                for name, r in sorted(self.releases.items())
            },
        }

    def from_dict(self, data: Dict[str, Any]) -> "StoredReleases":
        releases = {}
        for name, item in data.get("releases", {}).items():
            inventory = FrameInventory().from_dict(item["inventory"])
            releases[name] = StoredRelease(inventory, item.get("names"), _unpack(item["base"]), _unpack(item["memory"]))
        self.releases, self.active = releases, data.get("active")
        return self

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps(self.to_dict())

    def from_bytes(self, data: bytes) -> "StoredReleases":
        return self.from_dict(srsly.msgpack_loads(data))

    def to_disk(self, path) -> None:
        """A directory: `releases.json` (the active release and the names), and per
        release `<name>.json` (its inventory) and, when it has frame vectors,
        `<name>.vectors.json` (their frames), `<name>.base.npy` and `<name>.memory.npy`."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("*"):
            old.unlink()
        srsly.write_json(path / "releases.json", {"active": self.active, "releases": self.names})
        for name, r in self.releases.items():
            r.inventory.to_disk(path / f"{name}.json")
            if r.base is not None:
                srsly.write_json(path / f"{name}.vectors.json", r.names)
                for part in ("base", "memory"):
                    if getattr(r, part) is not None:
                        numpy.save(path / f"{name}.{part}.npy", getattr(r, part))

    def from_disk(self, path) -> "StoredReleases":
        path = Path(path)
        index = path / "releases.json"
        if not index.is_file():  # a pipeline saved without releases
            self.releases, self.active = {}, None
            return self
        info = srsly.read_json(index)
        releases = {}
        for name in info.get("releases", []):
            inventory = FrameInventory().from_disk(path / f"{name}.json")
            names = base = memory = None
            if (path / f"{name}.vectors.json").is_file():
                names = srsly.read_json(path / f"{name}.vectors.json")
                base = numpy.load(path / f"{name}.base.npy", allow_pickle=False)
                if (path / f"{name}.memory.npy").is_file():
                    memory = numpy.load(path / f"{name}.memory.npy", allow_pickle=False)
            releases[name] = StoredRelease(inventory, names, base, memory)
        self.releases, self.active = releases, info.get("active")
        return self


def _pack(rows: Optional[numpy.ndarray]) -> Optional[Dict[str, Any]]:
    return None if rows is None else {"shape": list(rows.shape), "data": rows.tobytes()}


def _unpack(packed: Optional[Dict[str, Any]]) -> Optional[numpy.ndarray]:
    if packed is None:
        return None
    return numpy.frombuffer(packed["data"], dtype="float32").reshape(packed["shape"]).copy()


class ReleasesMixin:
    """frame_identifier's stored releases: store one, switch to one, say which is active."""

    releases: StoredReleases
    inventory: FrameInventory

    @property
    def release(self) -> Optional[str]:
        """The stored release whose inventory is active (None: an inventory set by hand)."""
        return self.releases.active

    def store_release(self, name: str, inventory: Optional[FrameInventory] = None) -> None:
        """Carry `inventory` as release `name`; without one, the active inventory with its
        frame vectors as they are now (so switching back to it restores this state
        exactly), which then is the active release."""
        if inventory is None:
            self._ensure_index()
            memory = self._memory()
            index = self.index
            base = numpy.array(index.base, dtype="float32")
            release = StoredRelease(
                _copy(self.inventory), list(index.names), base, None if memory is None else numpy.array(memory)
            )
            self.releases.add(name, release)
            self.releases.active = name
        else:
            self.releases.add(name, StoredRelease(_copy(inventory)))

    def use_release(self, name: str) -> None:
        """Switch to the stored release `name` (see `set_inventory`); its own frame memory,
        when it was stored with one, comes back exactly."""
        release = self.releases[name]
        self.set_inventory(
            _copy(release.inventory), memory=release.memory_rows() or None, base=release.base_rows() or None
        )
        self.releases.active = name


def _copy(inventory: FrameInventory) -> FrameInventory:
    # the stored release stays as stored when the active inventory is edited (add_frame)
    return FrameInventory().from_dict(inventory.to_dict())
