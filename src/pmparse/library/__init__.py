"""The library of records on disk: store, record I/O, splicing and validation."""
