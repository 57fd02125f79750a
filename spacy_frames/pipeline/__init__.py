"""spaCy components, one module each; registered through entry points."""
