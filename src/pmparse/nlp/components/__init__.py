"""The registered spaCy components, one pipeline stage each."""
