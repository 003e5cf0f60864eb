"""Versioned rule data and its loaders: the heading table, cues, taxonomy and organisations."""
