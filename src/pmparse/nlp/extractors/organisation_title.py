"""The organisation a report written about someone else names in its title (a third-party
summary's subject: "Backdoor found in Acme release server"), or the victim its body names as
what was compromised.

Pure functions over strings; :mod:`pmparse.nlp.extractors.organisation` calls them.
"""

from __future__ import annotations

import re

from pmparse.nlp.extractors.gazetteer import Fact, Gazetteer
from pmparse.nlp.extractors.report_voice import DEFINITION_WINDOW, NOT_NAMES, defined_subject
from pmparse.nlp.extractors.url_owner import ORG_WORDS

_QUOTED_NAME = re.compile(r"[`‘'\"“]([\w.@/-]{2,40})[`’'\"”]")
_TITLE_WORD = re.compile(r"[\w][\w.&+-]*[\w+]|\w")
#: Title words that are never the subject's name, whatever their case.
_TITLE_STOP = {"a", "an", "the", "of", "in", "on", "at", "for", "to", "and", "or", "by", "with", "from", "via",
               "into", "after", "over", "its", "their", "is", "was", "are", "were", "be", "as",
               # what happened, not to whom
               "incident", "breach", "compromise", "compromised", "hack", "hacked", "attack", "attacks", "backdoor",
               "backdoored", "flaw", "infrastructure", "takeover", "malware", "vulnerability", "outage",
               "exploitation", "targets", "leverages", "evasive", "attacker", "attackers", "malicious", "leading",
               "security", "issue", "spear", "phishing", "trojanized", "sabotaged", "library", "package", "packages",
               # Latin abbreviations: their dot makes them look like a domain or a dotted name
               "i.e", "e.g", "etc", "vs", "cf", "viz"}
#: Most words of a name read from a title.
_TITLE_NAME_WORDS = 3


def title_subject(gaz: Gazetteer, text: str, body_start: int, title: tuple[str, list]) -> Fact | None:
    """The organisation a report written about someone else names in its title: a third-party
    summary ("Backdoor found in Zorbq's release server") is about the project it names.

    In order: a name in code or quotes, a name the table knows, else the first run of title words
    that are names (a digit, a dot or an inner capital in them, or written capitalised in the
    body where a common word would not be).
    """
    words_text, evidence = title
    offset = evidence[0][0] if evidence else None

    def fact(name: str, start: int) -> Fact:
        entry = gaz.by_alias.get(name.lower())
        if entry is None and "." in name:
            entry = gaz.domain(name)
        span = [(offset + start, offset + start + len(name))] if offset is not None else []
        return {"value": entry.name if entry else name, "evidence": span, "confidence": 0.6 if entry else 0.5,
                "origin": "title_subject"}

    after = max([body_start, *(end for _, end in evidence)])
    # a title that is one word alone names the attack or the malware ("Quietworm") as often as the
    # victim: the body's sentence saying what was compromised names the victim
    lone = len(_TITLE_WORD.findall(words_text)) == 1
    victim = _compromised(gaz, text, after) if lone else None
    if victim is not None:
        return victim
    defined = defined_subject(text, after, words_text)
    if defined is not None:
        name, span = defined
        entry = gaz.by_alias.get(name.lower())
        return {"value": entry.name if entry else name, "evidence": [span], "confidence": 0.6 if entry else 0.55,
                "origin": "title_subject"}
    quoted = _QUOTED_NAME.search(words_text)
    if quoted is not None:
        return fact(quoted.group(1), quoted.start(1))
    known = [(m.start(), m.group(0)) for _, _, pattern in gaz.aliases for m in [pattern.search(words_text)] if m]
    # the body after the title: the heading itself would count each of its words as capitalised,
    # and so would the title written again below it (a breadcrumb, a related-posts list, a page's
    # header over its h1): "Postmortem Zorbq Cloud" was the name of "Postmortem Zorbq Cloud outage"
    body = text[after:after + 20000]
    if " " in words_text.strip():
        body = body.replace(words_text.strip(), " ")
    run: list[re.Match] = []
    words = list(_TITLE_WORD.finditer(words_text))
    for match in words:
        word = match.group(0)
        bare = re.sub(r"'s$|’s$", "", word)
        name_like = False
        if bare.lower() not in _TITLE_STOP and len(re.findall(r"[^\W\d_]", bare)) >= 2 and not re.fullmatch(
                r"v?\d[\d.]*\w?|\d+[-/]\d+", bare):
            if re.search(r"\d|\.\w|\w[A-Z]", bare) or bare.isupper():
                name_like = True
            elif bare[0].isupper():
                # a name keeps its capital in the body's sentences, a title-cased common word does not
                word_pattern = re.escape(bare) + r"\b"
                capital = len(re.findall(r"(?<![\w-])" + word_pattern, body)) - len(
                    re.findall(r"(?:^|[.!?:]\s+|#\s*|[-*]\s+)" + word_pattern, body, re.MULTILINE))
                lower = len(re.findall(r"(?<![\w-])" + re.escape(bare.lower()) + r"\b", body))
                name_like = capital > lower
        if name_like and len(run) < _TITLE_NAME_WORDS and (not run or match.start() - run[-1].end() <= 1):
            run.append(match)
        elif run:
            break
    run = _with_words_written_before(words_text, words, _with_organisation_word(words_text, words, run), body)
    if known and (not run or known[0][0] <= run[0].start()):
        start, name = min(known)
        return fact(name, start)
    if not run:
        return _compromised(gaz, text, after)
    start, end = run[0].start(), run[-1].end()
    name = re.sub(r"'s$|’s$", "", words_text[start:end])
    return fact(name, start)


def _with_organisation_word(words_text: str, words: list[re.Match], run: list[re.Match]) -> list[re.Match]:
    """A title's run of name words that opens on an organisation word ("Foundation", "Network")
    goes back over the capitalised title words the word closes: "Free Zorbq Foundation" is the
    name, however its words are written in the body. An organisation word alone names nobody, so
    such a run with none before it is no name (issue 35: "Foundation" on a catalogue entry)."""
    if not run or re.sub(r"'s$|’s$", "", run[0].group(0)) not in ORG_WORDS:
        return run
    before: list[re.Match] = []
    for word in _capitalised_before(words_text, words, run[0]):
        if len(before) + len(run) > _TITLE_NAME_WORDS:
            break
        before.insert(0, word)
    return before + run if before else []


def _with_words_written_before(words_text: str, words: list[re.Match], run: list[re.Match],
                               body: str) -> list[re.Match]:
    """A title's run of name words goes back over the capitalised title words the body writes
    together with it: in "Zorbq Cloud outage" over a body that opens each sentence with "Zorbq
    Cloud", "Zorbq" never shows its capital mid-sentence, so the run was "Cloud" alone."""
    if not run:
        return run
    for word in _capitalised_before(words_text, words, run[0]):
        phrase = words_text[word.start():run[-1].end()]
        if len(run) >= _TITLE_NAME_WORDS or re.search(r"(?<![\w-])" + re.escape(phrase) + r"(?![\w-])", body) is None:
            break
        run = [word, *run]
    return run


def _capitalised_before(words_text: str, words: list[re.Match], first: re.Match):
    """The title words before ``first``, nearest first, while each is capitalised, no stop word,
    and one blank before the word after it (the caller takes each it yields, or stops)."""
    i = next(k for k, match in enumerate(words) if match.start() == first.start())
    while i > 0:
        word = words[i - 1]
        if (not word.group(0)[0].isupper() or word.group(0).lower() in _TITLE_STOP
                or words_text[word.end():first.start()] != " "):
            return
        yield word
        first, i = word, i - 1


#: A sentence saying what was compromised: "The update servers of Zorbq were compromised".
_COMPROMISED = re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))(?P<subj>[^.!?\n]{3,120}?)\s(?:was|were|had been|has been|have been|got)"
                          r"\s(?:\w+\s)?(?:compromised|hacked|breached|backdoored|trojani[sz]ed|hijacked)\b", re.MULTILINE)
_CAPITALISED = re.compile(r"(?<![\w.`'-])(?P<n>[A-Z][\w.+-]*[A-Za-z0-9](?:\s[A-Z][\w.+-]*[A-Za-z0-9]){0,2})(?:['’]s)?(?![\w-])")


def _compromised(gaz: Gazetteer, text: str, after: int) -> Fact | None:
    """The first name in the subject of the body's first sentence saying something was compromised
    ("The download server of the Zorbq client was hacked" is about Zorbq). A name opening the
    sentence must be written capitalised inside a sentence too ("Interestingly, ..." is no name)."""
    window = text[after:after + DEFINITION_WINDOW]
    for match in _COMPROMISED.finditer(window):
        for name in _CAPITALISED.finditer(match.group("subj")):
            value = name.group("n")
            if value.split()[0] in NOT_NAMES:
                continue
            at = match.start("subj") + name.start("n")
            if not window[:at].rstrip() or window[:at].rstrip()[-1] in ".!?\n":
                inside = re.search(r"[^.!?\s]\s+" + re.escape(value) + r"\b", window[at + len(value):])
                if inside is None:
                    continue
            entry = gaz.by_alias.get(value.lower())
            return {"value": entry.name if entry else value, "evidence": [(after + at, after + at + len(value))],
                    "confidence": 0.5, "origin": "title_subject"}
        return None
    return None
