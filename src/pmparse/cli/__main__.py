"""``python -m pmparse.cli``: the same as the ``pmparse`` command, though a Ctrl-C while Python
imports this package (before this file runs) still ends it with a traceback: ``python -m pmparse``
and the console script hold it from their first line."""

from pmparse import _entry

if __name__ == "__main__":
    _entry.main()
