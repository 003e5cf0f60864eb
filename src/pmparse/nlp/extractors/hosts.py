"""Host names written in a text ("status.example.org"), found fast.

Pure functions over strings; :func:`pmparse.nlp.extractors.organisation.mentions` counts the hosts
of known organisations among them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: A host name: dot-separated labels and a top-level label, not inside a longer word or address.
HOST = re.compile(r"(?<![\w.@-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}[a-z]{2,12})(?![\w-])", re.IGNORECASE)
#: The end every host has: a dot and its top-level label (the same letters, and what may follow them).
HOST_TAIL = re.compile(r"\.[a-z]{2,12}(?![\w-])", re.IGNORECASE)


def find_hosts(text: str, start: int, end: int) -> Iterator[re.Match]:
    """``HOST.finditer(text, start, end)``, reading the text only where a host can end.

    A host starts a run of the characters ``[\\w.@-]`` (its look-behind) and ends with a dot and
    its top-level label (:data:`HOST_TAIL`, found by skipping from dot to dot), so the pattern is
    tried once at the start of each run holding such an end, instead of at every letter of the
    text: its scan over up to 60,000 characters a document was half of :func:`mentions`. A run
    starting before ``start`` holds no match (every position of it after ``start`` follows a
    character of the run); the runs are walked back character by character, each once.
    """
    last_tail = last_run = tried = -1
    for tail in HOST_TAIL.finditer(text, start, end):
        run = tail.start()
        # \w is str.isalnum() or "_" (sre's own test for a word character)
        while run > 0 and run != last_tail and (text[run - 1].isalnum() or text[run - 1] in "_.@-"):
            run -= 1
        if run == last_tail:
            run = last_run  # the run the previous end was found in
        last_tail, last_run = tail.start(), run
        if run < start or run == tried:
            continue
        tried = run
        match = HOST.match(text, run, end)
        if match is not None:
            yield match
