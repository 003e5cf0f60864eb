"""The publisher of each card of a batch, input by input: the ``--organisation`` option, a
folder's settings file, the library's reviewed cards of the folder, and the folder's consensus
offered to its cards naming none (the rules themselves are :mod:`pmparse.batch.publisher`'s)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from pmparse.batch import publisher
from pmparse.batch.pool import Outcome, Task
from pmparse.errors import UsageError
from pmparse.locations import is_url


class BatchPublishers:
    """The batch's publisher: the ``--organisation`` option, folder settings, the library's reviewed
    cards of each folder, and each folder's consensus offered to its cards naming none
    (:mod:`pmparse.batch.publisher`)."""

    def __init__(self, organisation: str | None, reviewed: publisher.ReviewedCards | None = None,
                 named: set[str] | None = None, place: Callable[[str], str] = lambda location: location) -> None:
        self.organisation = organisation
        # the one spelling of a location (SourcePlaces.place): a folder's cards are its cards
        # whatever name reached them (relative, absolute, a link, a URL with a trailing "/")
        self.place = place
        # the folders the curator named as inputs (absolute), filled as the inputs are read
        self.named = named if named is not None else set()
        self.settings: dict = {}
        self.reported: set[str] = set()  # broken settings files already named in this batch
        self.consensus = publisher.Consensus()
        self.reviewed = reviewed

    def _cards(self, outcome: Outcome) -> list[str]:
        return [outcome.card_json] if outcome.card_json else [card for _, card, _ in outcome.entries]

    def _map(self, outcome: Outcome, change) -> Outcome:
        if outcome.card_json:
            changed = change(outcome.card_json)
            # a card kept beside its JSON holds only while the JSON is unchanged
            return dataclasses.replace(outcome, card_json=changed,
                                       card=outcome.card if changed == outcome.card_json else None)
        return dataclasses.replace(outcome, entries=tuple((loc, change(card), warn) for loc, card, warn in outcome.entries))

    def state(self, task: Task, outcome: Outcome) -> Outcome:
        """The outcome with the publisher the batch option or a folder setting states."""
        if outcome.kind == "unchanged" and not self.organisation:
            return self._warn_if_broken(task, outcome)
        if outcome.kind != "card":
            return outcome
        if self.organisation:
            name, origin, confidence = self.organisation, "batch", 1.0
        else:
            ignored: list[str] = []
            try:
                found = publisher.folder_settings(task.path, self.settings, ignored, self.named)
            except UsageError as exc:
                # a broken .pmparse.yaml fails the inputs under it (their publisher is the
                # curator's to state, not ours to guess); the rest of the batch goes on
                return dataclasses.replace(outcome, kind="failed", card_json=None, card=None, entries=(),
                                           error_kind="settings", message=str(exc))
            outcome = self._note_ignored(outcome, ignored)
            if found is None or not found[0].organisation:
                return self._from_reviewed(task, outcome)
            name, origin, confidence = found[0].organisation, "setting", 0.95
        return self._map(outcome, lambda card: publisher.with_organisation(card, name, origin, confidence))

    def _note_ignored(self, outcome: Outcome, ignored: list[str]) -> Outcome:
        """The outcome warning of each settings file passed over as someone else's (once a batch)."""
        new = [note for note in ignored if note not in self.reported]
        self.reported.update(new)
        return dataclasses.replace(outcome, warnings=tuple(outcome.warnings) + tuple(new)) if new else outcome

    def _warn_if_broken(self, task: Task, outcome: Outcome) -> Outcome:
        """An unchanged input is not read again, but a broken settings file above it is still
        named (once a batch): the curator who just wrote it would otherwise hear nothing."""
        try:
            publisher.folder_settings(task.path, self.settings, named=self.named)
        except UsageError as exc:
            if str(exc) not in self.reported:
                self.reported.add(str(exc))
                return dataclasses.replace(outcome, warnings=tuple(outcome.warnings) + (str(exc),))
        return outcome

    def _from_reviewed(self, task: Task, outcome: Outcome) -> Outcome:
        """The outcome with the publisher the folder's reviewed cards settled on, where a card
        names none or names one a person corrected away in that folder."""
        if task.location == "-" or self.reviewed is None or not self.reviewed.by_folder:
            return outcome
        place = self.place(task.location)
        reviewed, archive = self.reviewed.of(place), self.reviewed.archive(place)
        notes: list[str] = []

        def change(card: str) -> str:
            own = publisher.location_of(card)
            choice = reviewed.choice(place, publisher.organisation_of(card)[0], own=own and self.place(own),
                                     archive=archive, from_address=publisher.address_given(card))
            if choice is None:
                return card
            name, ids = choice
            note = (f"organisation {name} from this folder's reviewed cards ({', '.join(ids[:5])}"
                    f"{' ...' if len(ids) > 5 else ''})")
            if note not in notes:
                notes.append(note)
            return publisher.with_organisation(card, name, "reviewed", publisher.REVIEWED_CONFIDENCE)

        changed = self._map(outcome, change)
        return dataclasses.replace(changed, warnings=tuple(changed.warnings) + tuple(notes)) if notes else outcome

    def count(self, outcome: Outcome, results: list) -> None:
        """Count the stored cards of an outcome towards their folder's consensus (``results``: the
        batch's :class:`pmparse.batch.convert.FileResult` of each, in order)."""
        if outcome.kind != "card":
            return
        for card, result in zip(self._cards(outcome), results):
            if result.record:
                name, confidence = publisher.organisation_of(card)
                self.consensus.add(self.place(result.input), name, confidence, Path(result.record).stem)
                if self.reviewed is not None:
                    # what the next cards' reviewed publisher is weighed against (Reviewed.choice)
                    self.reviewed.stored(self.place(result.input), Path(result.record).stem, card)

    def offer(self, task: Task, outcome: Outcome) -> Outcome:
        """The outcome with its folder's consensus offered to its cards that name no publisher
        (a folder whose earlier cards in this batch mostly name one)."""
        if outcome.kind != "card" or task.location == "-" or is_url(task.location):
            return outcome
        if all(publisher.organisation_of(card)[0] for card in self._cards(outcome)):
            return outcome
        offer = self.consensus.offer(self.place(task.location))
        if offer is None:
            return outcome
        name, ids, total = offer

        def change(card: str) -> str:
            if publisher.organisation_of(card)[0]:
                return card
            return publisher.with_organisation(card, name, "folder", publisher.OFFERED_CONFIDENCE)

        note = (f"organisation {name} offered from this folder's other cards: {len(ids)} of {total} name it "
                f"({', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}); their evidence is its evidence")
        changed = self._map(outcome, change)
        return dataclasses.replace(changed, warnings=tuple(changed.warnings) + (note,))
