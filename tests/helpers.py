"""Helpers the tests share: where the samples and the corpus are, and record checks."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import yaml

from pmparse import __version__
from pmparse.batch.convert import convert
from pmparse.card.build import collapse
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.nlp.pipeline import PipelineConfig

#: The project checkout the tests run in.
REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "corpus" / "samples"


def corpus_path() -> Path | None:
    for candidate in (os.environ.get("PMPARSE_CORPUS"), REPO.parent / "shared" / "corpus"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def assert_offsets(card: Card, text: str) -> int:
    """Every item's evidence indexes ``text`` and spells the item's text; returns items checked."""
    checked = 0
    for name in TEXT_FIELDS:
        for item in getattr(card, name):
            assert item.evidence, f"{name} item without evidence"
            for ev in item.evidence:
                assert 0 <= ev.start < ev.end <= len(text), f"{name}: {ev} outside text of {len(text)}"
            joined = " ".join(text[ev.start:ev.end] for ev in item.evidence)
            assert collapse(joined) == item.text, f"{name}: evidence does not spell the item"
            checked += 1
    for key, support in card.support.items():
        for ev in support.evidence:
            assert 0 <= ev.start < ev.end <= len(text), f"{key}: {ev} outside text"
    return checked


def source_text(card: Card) -> str:
    """The text a card's offsets index (extracted text, or the file as read: for an entry of a
    file holding many incidents, the whole file)."""
    from pmparse.locations import split_location

    if card.source.extracted_text is not None:
        return card.source.extracted_text
    with open(split_location(card.source.location)[0], encoding="utf-8") as handle:  # line breaks as read
        return handle.read()


def write_jsonl(folder: Path, name: str, *rows) -> Path:
    """Write ``rows`` (dicts as JSON, strings as they are) one per line into ``folder/name``."""
    path = folder / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# --- records made from the shared corpus by two different models --------------------------------

CORE_DNS = "dfds/PM2020-004 - CoreDNS upgrade issue.md"
INOTIFY = "dfds/PM2020-001 - Inotify file watches exhaustion.md"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``, a small stand-in corpus; returns ``root``."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def other_headings(tmp_path: Path) -> str:
    """A heading table that files 'lessons learned' under root cause and 'action items' under remediation."""
    table = yaml.safe_load(resources.files("pmparse.resources").joinpath("headings.yaml").read_text(encoding="utf-8"))
    table["synonyms"]["lessons"].remove("lessons learned")
    table["synonyms"]["root_cause"].append("lessons learned")
    table["synonyms"]["action_items"].remove("action items")
    table["synonyms"]["remediation"].append("action items")
    path = tmp_path / "other-headings.yaml"
    path.write_text(yaml.safe_dump(table), encoding="utf-8")
    return str(path)


def convert_with_other_model(monkeypatch, tmp_path, sources, library):
    """Re-convert as a different model would: another heading table and another model name."""
    for module in ("pmparse.batch.pool", "pmparse.batch.suggest"):  # both stamp records with it
        monkeypatch.setattr(f"{module}.version_info", lambda nlp: {"version": __version__, "model": "test-model-2"})
    report = convert(sources, library, config=PipelineConfig(headings_path=other_headings(tmp_path)))
    monkeypatch.undo()
    return report


# --- headless Chromium over the DevTools protocol, on a pipe (no websocket, nothing downloaded) ---

def chromium_path() -> str | None:
    """The Chromium binary (Debian's ``chromium`` package), or None."""
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """A headless Chromium driven with ``--remote-debugging-pipe``: DevTools protocol messages are
    JSON terminated by a NUL byte, written to the browser's fd 3 and read from its fd 4.

    ``events`` collects every event of the page's session; :meth:`problems` lists the console
    errors, uncaught exceptions, log errors (a file that failed to load, a blocked script) and
    dialogs (an ``alert`` a hostile text managed to run) among them.
    """

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 860) -> None:
        import subprocess

        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds() -> None:  # pragma: no cover - runs in the child
            # dup first to fds above 4, so that placing them at 3 and 4 cannot clobber each other
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # pass_fds keeps the child's fds 3 and 4 open: both are open here too (the pipes just made
        # took the lowest free numbers), as subprocess requires of them

        args = [binary, "--headless", "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                "--metrics-recording-only", "--mute-audio", "--hide-scrollbars", f"--window-size={width},{height}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.process = subprocess.Popen(args + ["about:blank"], preexec_fn=child_fds, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(3, 4))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _read(self, timeout: float) -> dict:
        import select

        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_browser], [], [], timeout)
            if not ready:
                raise TimeoutError("no message from Chromium")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise ConnectionError("Chromium closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, session: str | None = None, timeout: float = 30, **params) -> dict:
        """Send one command and wait for its result (events seen meanwhile are kept)."""
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def call(self, method: str, **params) -> dict:
        """A command to the page."""
        return self.send(method, session=self.session, **params)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        """The next event ``method`` of the page (one already received counts)."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            for n, event in enumerate(self.events):
                if event["method"] == method and not event.get("_seen"):
                    event["_seen"] = True
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} from Chromium")
            event = self._read(remaining)
            if "method" in event:
                self.events.append(event)

    def open(self, url: str) -> None:
        """Load ``url`` and wait until it has loaded."""
        for event in self.events:
            if event["method"] == "Page.loadEventFired":
                event["_seen"] = True
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """Click the middle of the first element matching ``selector``, as a mouse would."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                            "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def click_and_wait(self, selector: str) -> None:
        """Click a link and wait until the page it opens has loaded."""
        for event in self.events:
            if event["method"] == "Page.loadEventFired":
                event["_seen"] = True
        self.click(selector)
        self.wait_for("Page.loadEventFired")

    def type(self, selector: str, text: str) -> None:
        """Focus ``selector`` and type ``text`` into it."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    def screenshot(self, path: Path) -> None:
        """A PNG of the viewport."""
        import base64

        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries and dialogs seen so far."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
            elif method == "Page.javascriptDialogOpening":
                found.append(f"dialog: {params.get('message')}")
        return found

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, TimeoutError, ConnectionError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


# --- libraries for the site's tests -------------------------------------------------------------

#: A postmortem written to attack the site: markup and script in its front matter, headings and text.
HOSTILE = """---
title: "<script>alert('title')</script> outage"
organisation: "<img src=x onerror=alert('org')>"
date: 2024-03-05
---
# Checkout outage <script>alert('heading')</script>

## Summary

For 40 minutes every checkout request failed after the <img src=x onerror=alert('summary')> cache node crashed.

## Root cause

A bug in the "</script><script>alert('cause')</script>" template parser & its <b onmouseover=alert('b')>cache</b> crashed.

## Remediation

- We restarted the cache node and rolled back the parser <svg onload=alert('fix')>.
"""


def reviewed_with_pending(source: Path, library: Path, text: str, added: str) -> None:
    """``source`` written with ``text`` and converted into ``library``, its one record marked reviewed
    by hand, then ``added`` appended and converted again: a reviewed record with a suggestion waiting."""
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text, encoding="utf-8")
    assert convert([str(source)], library, jobs=1).counts["converted"] == 1
    record = library / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    source.write_text(text + added, encoding="utf-8")
    assert convert([str(source)], library, jobs=1).counts["pending"] == 1


def sample_library(folder: Path, model: bool = False) -> Path:
    """The bundled samples, copied beside ``folder`` (tests may amend them), converted into
    ``folder`` (rules only unless ``model``)."""
    import shutil

    from pmparse.nlp.pipeline import pipeline_config

    sources = folder.parent / "samples"
    shutil.copytree(SAMPLES, sources)
    config = pipeline_config() if model else PipelineConfig()
    assert convert([str(sources)], folder, config=config).counts["converted"] == 3
    return folder


def text_card(card_id: str, text: str, **fields) -> Card:
    """A card whose source text it holds itself (as an HTML extraction), with ``fields`` set;
    ``fields`` may give an item as ``(start, end, confidence)``: its text is ``text[start:end]``."""
    from pmparse.util import sha256_text

    data: dict = {"id": card_id, "source": {"location": f"/nowhere/{card_id}.html", "sha256": sha256_text(text),
                                            "format": "html", "extracted_text": text},
                  "pipeline": {"version": __version__, "model": "test"}}
    for name, value in fields.items():
        if name in TEXT_FIELDS:
            value = [{"text": collapse(text[s:e]), "evidence": [{"start": s, "end": e}], "confidence": c}
                     for s, e, c in value]
        data[name] = value
    return Card.model_validate(data)


#: A two-page, two-column paper written for the tests: (left column, right column) lines per page.
#: Each page also carries a running header and a page number, which extraction must drop, and
#: "configu-" / "ration" is a word hyphenated over a line end.
PAPER_TITLE = "Lessons from a replicated queue outage"
PAPER_HEADER = "Proceedings of the Imaginary Operations Workshop"
PAPER_PAGES = [
    (["Summary",
      "On 12 May 2022 the replicated job queue",
      "of our build service stopped handing out",
      "jobs for 95 minutes. A configu-",
      "ration push set the lease timeout to zero,",
      "so every worker gave its job back at once."],
     ["Detection",
      "The queue depth alert paged the on-call",
      "engineer eleven minutes after the push.",
      "Root cause",
      "The lease timeout was read from a new",
      "field that older nodes did not know."]),
    (["Remediation",
      "The push was rolled back and the queue",
      "drained within twenty minutes.",
      "Lessons learned",
      "Defaults that stop all work are dangerous."],
     ["Action items",
      "- Refuse a lease timeout of zero.",
      "- Roll out new fields to every node first.",
      "- Add a canary queue for configuration pushes."]),
]


def two_column_pdf(path: Path, row_by_row: bool = True) -> Path:
    """Write the test paper as a PDF (fpdf2, a test dependency).

    With ``row_by_row`` the content stream interleaves the columns (a left line, then the right
    line beside it), as some typesetters write them: a reader that follows the stream instead of
    the layout reads the columns mixed.
    """
    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    for number, (left, right) in enumerate(PAPER_PAGES, start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=8)
        pdf.text(60, 40, PAPER_HEADER)
        pdf.text(290, 810, str(number))
        if number == 1:
            pdf.set_font("Helvetica", "B", size=16)
            pdf.text(60, 90, PAPER_TITLE)
        pdf.set_font("Helvetica", size=10)
        top = 130
        rows = max(len(left), len(right))
        cells = [(column, i) for i in range(rows) for column in (0, 1)] if row_by_row else \
            [(column, i) for column in (0, 1) for i in range(rows)]
        for column, i in cells:
            lines = left if column == 0 else right
            if i < len(lines):
                pdf.text(60 + column * 260, top + i * 14, lines[i])
    pdf.output(str(path))
    return path


def review_publisher(library: Path | str, location_end: str, organisation: str) -> None:
    """What a curator does by hand: set the organisation of the record whose source location ends
    with ``location_end`` and mark it reviewed."""
    from pmparse.library.records import dumps
    from pmparse.library.store import Library

    for entry in Library.open(library).entries.values():
        if entry.card.source.location.endswith(location_end):
            card = entry.card.model_copy(update={"organisation": organisation, "status": "reviewed"})
            entry.path.write_text(dumps(card, "yaml"), encoding="utf-8")
            return
    raise AssertionError(f"no record of {location_end}")


class _NoInode:
    """A stat result whose inode number is 0, as some file systems give for every file."""

    def __init__(self, st: os.stat_result) -> None:
        self._st = st

    def __getattr__(self, name: str):
        return 0 if name == "st_ino" else getattr(self._st, name)

    def __getitem__(self, index: int):
        return 0 if index == 1 else self._st[index]


def without_inode_numbers(monkeypatch) -> None:
    """Make ``os.stat`` report inode 0 for every file (a file system without inode numbers:
    Python's ``st_ino`` identifies a file only when it is not 0)."""
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: _NoInode(real_stat(path, *args, **kwargs)))
