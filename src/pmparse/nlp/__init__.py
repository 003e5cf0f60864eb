"""The spaCy pipeline: tokenizer, registered components and the extractors they call."""
