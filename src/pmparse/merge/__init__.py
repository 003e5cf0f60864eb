"""Settling a library git merged, after review: records two curators gave one id kept apart, and
state files left with conflict markers (``pmparse resolve``)."""
