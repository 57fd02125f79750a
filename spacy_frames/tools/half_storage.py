"""Store chosen components' own encoder weights in float16 on disk, which halves the
installed package's encoder copies.

A component that owns torch weights saves them as a state dict: frame_identifier its
frame-definition encoder (never run per document: the frame vectors are a cached index),
discourse_sense its own transformer copy. Cast to float16 before saving, each file
halves. Loading needs nothing new: both loaders (ours, spacy-transformers' HFShim) build
the module in float32 from its config and `load_state_dict` casts the stored tensors
back, so the pipeline still runs in float32, with weights rounded to float16 (relative
error at most 2**-11). The shared transformer is left as it is unless it is named.

    python -m spacy_frames half-storage training/frames_trf --component frame_identifier --component discourse_sense
"""

from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

from .model_check import load_pipeline


def torch_modules(component) -> List[Any]:
    """The torch modules a component saves itself (its model's shims), each once."""
    model = getattr(component, "model", None)
    if model is None or not hasattr(model, "walk"):
        return []
    found, seen = [], set()
    for node in model.walk():
        for shim in node.shims:
            module = getattr(shim, "_model", None)
            if module is not None and hasattr(module, "state_dict") and id(module) not in seen:
                seen.add(id(module))
                found.append(module)
    return found


def _float_bytes(modules: Iterable[Any]) -> Dict[str, int]:
    counts = {"float32": 0, "float16": 0}
    for module in modules:
        for tensor in module.state_dict().values():
            name = str(tensor.dtype).replace("torch.", "")
            if name in counts:
                counts[name] += tensor.numel() * tensor.element_size()
    return counts


def half_storage(model: Path, components: List[str], output: Optional[Path] = None) -> Dict[str, Any]:
    """Save the pipeline at `model` (or `output`) with the named components' torch weights
    in float16. Checks everything before writing: an unknown component, one without
    weights of its own, or weights shared with a component not named leave the
    directory untouched."""
    if not components:
        raise ValueError("half_storage: name at least one component (--component NAME)")
    nlp = load_pipeline(model)
    unknown = [name for name in components if name not in nlp.component_names]
    if unknown:
        raise ValueError(
            f"half_storage: no component {', '.join(map(repr, unknown))} in {model} (it has: {', '.join(nlp.component_names)})"
        )
    chosen = {name: torch_modules(nlp.get_pipe(name)) for name in components}
    empty = [name for name, modules in chosen.items() if not modules]
    if empty:
        raise ValueError(
            f"half_storage: {', '.join(map(repr, empty))} saves no torch weights of its own (a listener or a head has none)"
        )
    others = {id(m) for name in nlp.component_names if name not in chosen for m in torch_modules(nlp.get_pipe(name))}
    shared = [name for name, modules in chosen.items() if any(id(m) in others for m in modules)]
    if shared:
        raise ValueError(
            f"half_storage: {', '.join(map(repr, shared))} shares torch weights with a component not named; name both or neither"
        )
    before = {name: _float_bytes(modules) for name, modules in chosen.items()}
    for modules in chosen.values():
        for module in modules:
            module.half()
    target = Path(output) if output is not None else Path(model)
    nlp.to_disk(target)
    return {
        "model": str(target),
        "components": {
            name: {
                "float32_mib_before": round(before[name]["float32"] / 2**20, 1),
                "float16_mib_after": round(_float_bytes(chosen[name])["float16"] / 2**20, 1),
            }
            for name in chosen
        },
    }
