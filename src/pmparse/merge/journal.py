"""The journal of ``pmparse resolve``: what a split writes, kept in ``.pmparse/intent/`` before it
is written file by file, so that a run killed midway is finished (or refused, when the files
changed since) by the next one. A journal from someone else names only the files a split of its
id writes, or it is refused unapplied.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pmparse.errors import UnsafePathError
from pmparse.library.folder import RECORD_FILE
from pmparse.library.state import STATE_KINDS
from pmparse.library.statefiles import read_record_text, regular_text
from pmparse.library.store import Library
from pmparse.merge.conflicts import holds_conflict
from pmparse.merge.outcome import Resolution
from pmparse.paths import inside
from pmparse.util import atomic_write, sha256_text

#: The state kinds that belong to one record and travel with it (the order they are read in:
#: the cards first, whose sources tell which side a rejection or draft decision is of).
KINDS = STATE_KINDS

#: A journal's name in ``.pmparse/intent/`` (not an intent of the store: Library.finish_writes
#: reads only ``IL-*.json``).
_JOURNAL = re.compile(r"^resolve-(IL-[0-9]{4})\.json\Z")

#: An id as a journal names the one it gives theirs.
_ID = re.compile(r"IL-[0-9]{4}")


def journalled(library: Library, card_id: str, record: str, text: str, steps: list, new_id: str,
                message: str) -> Resolution:
    """Keep the steps as a journal, then apply them: the journal names the file its last step
    writes or removes (``record``) and that file's text now, which tells the next run whether
    the split is still to finish (:func:`finish_journals`)."""
    journal = {"record": record, "conflicted": sha256_text(text), "steps": steps, "new_id": new_id,
               "message": message}
    journal_path = inside(library.root, f".pmparse/intent/resolve-{card_id}.json")
    atomic_write(journal_path, json.dumps(journal, ensure_ascii=True))
    _apply(library.root, steps)
    journal_path.unlink()
    return Resolution(card_id, "split", new_id, message)


def record_text(path: Path) -> str | None:
    """A regular file's text with its line breaks as they are (CRLF stays), or None (also one
    larger than a record may be: a record or state file of gigabytes from someone else)."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        # over the limit: left alone unread, as every other command leaves it (validate names it)
        return read_record_text(path, newline="")
    except (OSError, UnicodeDecodeError):
        return None


def _apply(root: Path, steps: list) -> None:
    """Write (or, for None, remove) each file of a journal, in its order; writing one again is
    harmless, so a journal a killed run left is applied whole."""
    # every path checked before the first write: a link met midway stopped the run half written
    targets = [inside(root, rel) for rel, _ in steps]
    for target, (_, text) in zip(targets, steps):
        if text is None:
            target.unlink(missing_ok=True)
        else:
            atomic_write(target, text)


def _stray_step(root: Path, card_id: str, journal: dict, steps: list) -> str | None:
    """What a journal names that :func:`journalled` never writes for ``card_id`` (quoted), or
    None: it writes the state files of ``card_id`` and the files of the id it gives theirs (one
    record file), each once, removes only ``card_id``'s state files, and its last step, the only
    one naming a record file of ``card_id``, is its record; no step goes through a link."""
    new_id = journal.get("new_id")
    if not isinstance(new_id, str) or not _ID.fullmatch(new_id) or new_id == card_id:
        return f"the new id {new_id!r}"
    record = journal.get("record")
    if not isinstance(record, str) or record not in _record_files(card_id):
        return f"the record {record!r}"
    if not steps or steps[-1][0] != record:
        return "a last step that is not its record's"
    own = _files_of(card_id) - _record_files(card_id)
    seen: set[str] = set()
    for rel, text in steps[:-1]:
        if rel not in (own if text is None else own | _files_of(new_id)):
            # another format's file of its id too: two records of one id, or one removed
            return f"{'a removal' if text is None else 'a write'} of {rel!r}"
        if rel in seen or (rel in _record_files(new_id) and seen & _record_files(new_id)):
            # a split names each file once: millions of writes of one file (fsynced) took hours
            return f"a second step of {rel!r}"
        seen.add(rel)
    for rel, _ in steps:
        try:
            inside(root, rel)
        except UnsafePathError:
            return f"a step through a symbolic link ({rel!r})"
    return None


def _held(root: Path, new_id: str, steps: list) -> str | None:
    """A file of ``new_id`` a journal about to be applied would write over (quoted), or None. The
    id was free when the split began, so a file of it is one the stopped run wrote, holding the
    journal's text; any other is another record's, or a person's edit of theirs since."""
    for rel, text in steps:
        target = root / rel
        if rel in _files_of(new_id) and os.path.lexists(target) and record_text(target) != text:
            return repr(rel)
    return None


def _record_files(card_id: str) -> set[str]:
    return {f"{card_id}.{ext}" for ext in ("yaml", "yml", "json")}


def _files_of(card_id: str) -> set[str]:
    """The files of one id a split writes or removes: its record files and its state files."""
    return _record_files(card_id) | {f".pmparse/{kind}/{card_id}.json" for kind in KINDS}


def finish_journals(root: Path) -> list[Resolution]:
    """Apply a journal a killed ``resolve`` left while its record is still the conflicted text it
    was made from; drop one whose record was written since (the run died after its last write, or
    a person settled it). One whose record was edited but would be split again, theirs already
    written under the new id, is kept and refused. Returns the splits it finished or refused."""
    finished: list[Resolution] = []
    folder = root / ".pmparse" / "intent"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return finished
    for name in names:
        if not _JOURNAL.match(name):
            continue
        journal_path = inside(root, f".pmparse/intent/{name}")
        card_id = _JOURNAL.match(name).group(1)
        steps: list = []
        try:
            # a FIFO planted here would keep the lock for ever; one of gigabytes is refused unread
            journal = json.loads(regular_text(journal_path))
            steps = [(str(rel), None if text is None else str(text)) for rel, text in journal["steps"]]
            conflicted = str(journal["conflicted"])
            stray = _stray_step(root, card_id, journal, steps)
            record = None if stray is not None else record_text(inside(root, journal["record"]))
            held = _held(root, journal["new_id"], steps) if record is not None and sha256_text(
                record) == conflicted else None  # only a journal about to be applied writes
        except (OSError, ValueError, KeyError, TypeError):
            stray, record, held = None, None, None  # a journal cut short while written: its record not touched yet
        if held is not None:
            finished.append(Resolution(card_id, "refused", message=(
                f"{card_id}: .pmparse/intent/{name} would write over {held}, which the library already holds "
                f"(another record's, or theirs edited since a resolve was stopped); nothing written: settle "
                f"{journal['record']} by hand and remove the journal")))
            continue
        if stray is not None:
            # a library from someone else may ship one: applied, it wrote where its sender chose
            # (.git/config, a source); kept for a person, who sees it is none of pmparse's
            finished.append(Resolution(card_id, "refused", message=(
                f"{card_id}: expected .pmparse/intent/{name} to name only the files resolve writes for {card_id} "
                f"and the id it gives, found {stray}; nothing written: remove it if no resolve of yours was "
                "stopped")))
            continue
        # died after its last write: the record written, or the file of another format removed
        applied = bool(steps) and record == steps[-1][1] and steps[-1][0] == journal["record"]
        if record is not None and sha256_text(record) == conflicted:
            # a write that fails here (the disk still full) keeps the journal for the next run:
            # dropped, that run would split the record again and make theirs twice
            _apply(root, steps)
            applied = True
        if applied:
            finished.append(Resolution(card_id, "split", journal.get("new_id"), str(
                journal.get("message") or f"{card_id}: the split a stopped run began is finished")))
        elif record is not None and (steps[-1][1] is None or holds_conflict(record)):
            begun = [rel for rel, text in steps if RECORD_FILE.match(rel) and text is not None
                     and rel != journal["record"] and record_text(inside(root, rel)) == text]
            if begun:
                # the record was edited since, yet would be split again: theirs, already written
                # under the new id, would be made twice. Kept (with the journal) for a person
                rec, new = journal["record"], begun[0]
                how = (f"carry the change into {new} and remove {rec}: the next run finishes the split"
                       if steps[-1][1] is None else f"keep ours in {rec} by hand, theirs being {new}")
                finished.append(Resolution(card_id, "refused", message=(
                    f"{card_id}: a stopped resolve began to split it and wrote theirs as {new}, but {rec} changed "
                    f"since: {how}")))
                continue
        journal_path.unlink(missing_ok=True)
    return finished
