"""``python -m pmparse``: the same as the ``pmparse`` command."""

from pmparse import _entry  # first: it holds Ctrl-C while the command line is imported

if __name__ == "__main__":
    _entry.main()
