"""Comparing suggestions with records and merging what a person accepts."""
