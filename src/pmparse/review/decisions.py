"""What a reviewer answers for one field, and where the answers come from when no person is asked:
``--accept``, ``--reject``, ``--items`` and ``--accept-all`` (:func:`scripted`)."""

from __future__ import annotations

import datetime as _dt
import getpass
import os
from dataclasses import dataclass
from typing import Any, Callable, Literal

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import UsageError
from pmparse.review.anchor import REVIEW_FIELDS
from pmparse.review.compare import CardDiff, FieldChange

Action = Literal["accept", "reject", "edit", "items", "skip", "quit", "settled"]


@dataclass
class Decision:
    """A reviewer's answer for one field.

    Attributes:
        action: ``accept``, ``reject``, ``edit`` (accept ``value`` instead), ``items`` (a text field
            decided item by item: ``items`` taken), ``skip`` or ``quit``.
        value: The edited value, for ``edit``.
        items: For ``items``: the numbers of the item changes accepted
            (:func:`pmparse.review.compare.item_changes`); the others are refused.
    """

    action: Action
    value: Any = None
    items: frozenset[int] = frozenset()


#: ``(diff, change, position, total) -> Decision``: asks a person about one field.
Ask = Callable[[CardDiff, FieldChange, int, int], Decision]


def reviewer_name(given: str | None = None) -> str:
    """Who reviews: ``given``, else ``$USER`` (``$USERNAME``), else the account name, else the uid.

    Containers and cron jobs often run without ``$USER``, but the system still knows the
    account (``getpass.getuser`` reads ``$LOGNAME`` and the password database); an account with
    no name in it (a container's arbitrary uid) is named by its number.
    """
    name = given or os.environ.get("USER") or os.environ.get("USERNAME")
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError, ImportError):  # no name for this uid in the password database
        pass
    uid = getattr(os, "getuid", None)
    return f"uid {uid()}" if uid is not None else "unknown"


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def field_names(names: tuple[str, ...] | list[str], option: str) -> set[str]:
    chosen = {part.strip() for name in names for part in name.split(",") if part.strip()}
    unknown = sorted(chosen - set(REVIEW_FIELDS))
    if unknown:
        raise UsageError(f"{option}: expected fields among {', '.join(REVIEW_FIELDS)}, found {', '.join(unknown)}")
    return chosen


def item_options(given: tuple[str, ...] | list[str]) -> dict[str, frozenset[int]]:
    """``--items FIELD:N[,N...]`` (repeatable) as ``{field: numbers of the item changes taken}``.

    Raises:
        UsageError: not ``FIELD:N[,N...]``, or a field that is not a list field.
    """
    out: dict[str, frozenset[int]] = {}
    for option in given:
        name, _, numbers = option.partition(":")
        name = name.strip()
        try:
            taken = frozenset(int(n) for n in numbers.split(",") if n.strip())
        except ValueError:
            taken = frozenset()
        if not taken or min(taken) < 1:
            raise UsageError(f"--items: expected FIELD:N[,N...] (item numbers from 1, as diff --format json "
                             f"gives them), found {option!r}")
        if name not in TEXT_FIELDS:
            raise UsageError(f"--items: expected a list field among {', '.join(TEXT_FIELDS)}, found {name!r}")
        out[name] = out.get(name, frozenset()) | taken
    return out


def scripted(accept: set[str], reject: set[str], accept_all: bool,
             items: dict[str, frozenset[int]] | None = None) -> Ask:
    """The decisions of ``--accept``, ``--reject``, ``--items`` and ``--accept-all``; other fields
    are skipped. ``--items`` takes the named item changes of a list field and refuses its others.

    A title asked with the facts it restates (``change.linked``) is rejected when any of them is
    rejected, else accepted when any is accepted.
    """

    def ask(diff: CardDiff, change: FieldChange, position: int, total: int) -> Decision:
        # a title and the facts it says are one decision: rejecting one rejects them all, and
        # accepting one accepts them all (a record never says two durations)
        names = {change.field, *change.linked}
        if items and change.field in items:
            return Decision("items", items=items[change.field])
        if names & reject:
            return Decision("reject")
        if accept_all or names & accept:
            return Decision("accept")
        return Decision("skip")

    return ask
