"""``python -m pmparse.cli``: the same as the ``pmparse`` command."""

from pmparse.cli import run

if __name__ == "__main__":
    run()
