"""pmparse: turn incident postmortems into structured, evidence-backed library cards.

The Python API is :func:`extract` (one text to a card) and :func:`convert` (a batch into a
library); both load the pipeline on first use, so ``import pmparse`` stays cheap.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "convert", "extract"]


def __getattr__(name: str):
    # lazy: importing spaCy and the models only when the API is used keeps the CLI's start-up
    if name in ("extract", "convert"):
        from pmparse import api

        return getattr(api, name)
    raise AttributeError(f"module 'pmparse' has no attribute {name!r}")
