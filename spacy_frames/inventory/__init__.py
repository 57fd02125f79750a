"""The label inventories the components share: `frames.py` (FrameInventory: FrameNet frames,
definitions, lexical units, frame relations), `lexicon.py` (lemma.POS lookup of lexical
units in a Doc), `index.py` (FrameIndex: frame vectors searched with FAISS) and
`senses.py` (the PDTB-3 sense hierarchy of discourse relations)."""
