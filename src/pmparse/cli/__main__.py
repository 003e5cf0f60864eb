"""``python -m pmparse.cli``: the same as the ``pmparse`` command."""

from pmparse.cli import main

if __name__ == "__main__":
    main()
