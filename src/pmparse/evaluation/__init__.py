"""Measuring: the corpus, gold sets, metrics, floors, facts and the benchmark."""
