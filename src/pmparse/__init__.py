"""pmparse: turn public incident postmortems into structured, evidence-backed library cards."""

__version__ = "0.1.0"
