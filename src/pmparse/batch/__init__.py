"""Batch conversion: inputs, the worker pool and the library policy."""
