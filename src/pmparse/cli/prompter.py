"""Asking a person about each suggestion at the terminal: y, n, e, s, q and ?."""

from __future__ import annotations

from typing import Any, Callable

import click
import yaml

from pmparse.card.schema import Card
from pmparse.util import shown
from pmparse.cli.render import render_change, render_folded, render_header, render_item
from pmparse.errors import RecordError
from pmparse.library.records import dumps
from pmparse.library.splice import top_regions
from pmparse.review.compare import CardDiff, FieldChange, ItemChange, item_changes, merge
from pmparse.review.session import Decision, edit_changes_nothing
from pmparse.yaml_problems import PureCalendarLoader

_HELP = """y - accept this suggestion (rewrites this field of the record and marks it reviewed)
n - reject it (the record stays; not proposed again for this source and model)
e - edit the suggested value in $EDITOR, then accept your version
i - item by item (a list field adding or dropping several items): y or n for each
s - skip it for now (it stays pending)
q - quit; every decision made so far is kept
? - print this help"""

_KEYS = {"y": "accept", "n": "reject", "e": "edit", "i": "items", "s": "skip", "q": "quit"}

_ITEM_HELP = """y - take this change (the item is added to the record, or dropped from it)
n - refuse it (an added item is not proposed again for this source and model; a dropped one stays)
q - stop: this field stays pending, nothing of it is written
? - print this help
Once every item is answered the field is written at once: your own items as they are, with the
changes you took."""


def field_text(card: Card, name: str) -> str:
    """One field of a card as it reads in a YAML record (what the editor shows)."""
    text = dumps(card, "yaml")
    regions = top_regions(text)
    assert regions is not None  # a canonical dump always has plain keys
    start, end = regions[name]
    return text[start:end] + "\n"


def parse_edit(text: str, name: str) -> Any:
    """The value of ``name`` in an edited ``name: value`` YAML snippet.

    Raises:
        RecordError: not YAML, or not a mapping holding only ``name``.
    """
    try:
        data = yaml.load(text, Loader=PureCalendarLoader)  # yaml.safe_load, a date that is no day an error
    except yaml.YAMLError as exc:
        raise RecordError(f"expected YAML, found a syntax error: {exc}", "(edit)") from exc
    if not isinstance(data, dict) or set(data) != {name}:
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise RecordError(f"expected a mapping with the one key {name!r}, found {found}", "(edit)")
    return data[name]


class Prompter:
    """Asks a person about each field on the terminal, ``git add -p`` style.

    Args:
        color: Colour the hunks.
        editor: Opens text in ``$EDITOR`` and returns it (None when not saved); :func:`click.edit`.
    """

    def __init__(self, color: bool = False, editor: Callable[..., str | None] | None = None) -> None:
        self.color = color
        self.editor = editor or click.edit

    def _echo(self, text: str = "") -> None:
        click.echo(text, color=self.color)

    def notice(self, diff: CardDiff) -> None:
        """Show a record that asks nothing but follows its amended source."""
        self._echo("\n".join(render_header(diff, self.color) + render_folded(diff, self.color)
                             + ["  nothing to decide: the record follows the new text"]))

    def broken(self, card_id: str, error: str, suggestion: Card | None) -> None:
        """A record that cannot be read: say why, and offer to show what pmparse suggests for it
        (so a person can repair the record, or rebuild it from the suggestion)."""
        self._echo(shown(f"{card_id}: the record cannot be reviewed until it is repaired: {error}"))
        if suggestion is None:
            return
        try:
            answer = click.prompt(f"{card_id}: show the pending suggestion [y,n]", default="n",
                                  show_default=False, prompt_suffix="? ").strip().lower()
        except click.Abort:
            self._echo()
            return
        if answer[:1] == "y":
            self._echo(f"# the pending suggestion for {card_id} (.pmparse/pending/{card_id}.json), as a record:")
            self._echo(shown(dumps(suggestion, "yaml").rstrip("\n")))
        self._echo(f"{card_id} stays pending: repair the record (`pmparse validate` gives the line), then "
                   "run `pmparse review` again")

    def __call__(self, diff: CardDiff, change: FieldChange, position: int, total: int) -> Decision:
        if position == 1:
            self._echo("\n".join(render_header(diff, self.color) + render_folded(diff, self.color)))
        self._echo("\n".join(render_change(diff, change, self.color)))
        if change.linked:
            self._echo(f"  the title says {', '.join(change.linked)}: your answer decides "
                       f"{'it' if len(change.linked) == 1 else 'them'} too (e edits the title and takes "
                       f"{'it' if len(change.linked) == 1 else 'them'})")
            for name in change.linked:
                linked = next(c for c in diff.changes if c.field == name)
                self._echo("\n".join(render_change(diff, linked, self.color)))
        items = item_changes(change)
        # item by item only where there is more than one change to tell apart
        keys = "y,n,e,i,s,q,?" if len(items) > 1 else "y,n,e,s,q,?"
        while True:
            answer = self._prompt(f"({position}/{total}) Accept the suggested {change.field} [{keys}]")
            if answer is None:
                return Decision("quit")
            action = _KEYS.get(answer[:1])
            if action is None or (action == "items" and len(items) < 2):
                self._echo(_HELP if len(items) > 1 else "\n".join(
                    line for line in _HELP.splitlines() if not line.startswith("i ")))
                continue
            if action == "items":
                return self._items(diff, change, items)
            if action != "edit":
                return Decision(action)  # type: ignore[arg-type]
            value = self._edit(diff, change)
            if value is _CANCELLED:
                continue
            if edit_changes_nothing(diff, change.field, value):
                self._echo("saved without a change: the suggestion is accepted as it is (y)")
                return Decision("accept")
            return Decision("edit", value)

    def _prompt(self, text: str) -> str | None:
        """A person's answer, lower case; None at the end of the input (a quit).

        Raises:
            KeyboardInterrupt: Ctrl-C at the prompt.
        """
        try:
            return click.prompt(text, default="", show_default=False, prompt_suffix="? ").strip().lower()
        except click.Abort as exc:
            self._echo()
            if isinstance(exc.__context__, KeyboardInterrupt):
                # Ctrl-C at the prompt ends the review as Ctrl-C anywhere else does (exit 130);
                # the end of the input (a closed pipe) is a quit
                raise KeyboardInterrupt from None
            return None

    def _items(self, diff: CardDiff, change: FieldChange, items: list[ItemChange]) -> Decision:
        """Ask about each item change of a list field: y takes it, n refuses it, q stops (the
        field stays pending). Nothing is written until every item is answered."""
        taken: set[int] = set()
        for item in items:
            self._echo("\n".join(render_item(diff, item, self.color)))
            verb = "adding this item to" if item.kind == "add" else "dropping this item from"
            while True:
                answer = self._prompt(f"  (item {item.number}/{len(items)}) Accept {verb} {change.field} [y,n,q,?]")
                if answer is None:
                    return Decision("quit")
                if answer[:1] in ("y", "n", "q"):
                    break
                self._echo(_ITEM_HELP)
            if answer[:1] == "q":
                self._echo(f"  {change.field} stays pending: nothing of it was written")
                return Decision("skip")
            if answer[:1] == "y":
                taken.add(item.number)
        return Decision("items", items=frozenset(taken))

    def _edit(self, diff: CardDiff, change: FieldChange) -> Any:
        intro = (f"# {diff.id}: edit the suggested {change.field}, save and close to accept your version.\n"
                 "# Lines starting with '#' are ignored. Close without saving to go back.\n")
        try:
            edited = self.editor(intro + field_text(diff.suggestion, change.field), extension=".yaml")
        except click.ClickException as exc:
            # a missing editor, or one that exits with an error: the decisions made so far and
            # the rest of the session are worth more than this one edit
            self._echo(shown(f"the editor failed ({exc.format_message()}): back to the question"))
            return _CANCELLED
        if edited is None:
            self._echo("not saved: back to the question")
            return _CANCELLED
        try:
            value = parse_edit(edited, change.field)
            merge(diff.record, diff.suggestion, [change.field], {change.field: value}, places=diff.places)
        except RecordError as exc:
            self._echo(shown(f"edit not used: {exc.message}"))
            return _CANCELLED
        return value

_CANCELLED = object()
