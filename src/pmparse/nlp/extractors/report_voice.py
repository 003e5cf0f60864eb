"""How a report speaks and is laid out: pure string tests the organisation rules ask (issue 35).

Whether a text speaks in the first person (outside quotations and cited addresses), keeps a
timeline of its own, calls itself an incident report, signs as a team, names a team whose software
it runs; the sentence around a span; the name a summary's opening defines.
:mod:`pmparse.nlp.extractors.organisation` decides with them; they hold no table.
"""

from __future__ import annotations

import re

#: First words that never open a name.
NOT_NAMES = {"The", "This", "That", "We", "Our", "It", "In", "On", "At", "A", "An", "As", "All", "Some", "Monday",
              "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "First", "Then", "Since"}
FIRST_PERSON = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Uu]s|[Ww]e're|[Ww]e've|[Oo]urs)\b")


#: A sentence defining a name: "Zorbq is a build tool ...", "The Quiet Tab was an extension ...".
_DEFINITION = re.compile(r"(?:^|(?<=[.!?]\s))(?P<n>(?:The\s)?[A-Z0-9][\w.&+-]*(?:\s[A-Z0-9][\w.&+-]*){0,3})"
                         r"\s(?:is|was|are|were)\s(?:a|an|the|one)\b", re.MULTILINE)
#: How far into the body a defining sentence is looked for (a summary defines its subject first).
DEFINITION_WINDOW = 800


def defined_subject(text: str, after: int, title: str) -> tuple[str, tuple[int, int]] | None:
    """The name a summary's opening defines ("Zorbq is a build tool used by ...") when its title
    names it too: the subject as the body writes it, without the title's extra words ("Compromise
    of the Zorbq Uploader tool" is about Zorbq). A leading "The" is kept when the title has it."""
    folded = title.casefold()
    for match in _DEFINITION.finditer(text, after, min(len(text), after + DEFINITION_WINDOW)):
        name = match.group("n")
        bare = name[4:] if name.startswith("The ") else name
        if bare.split()[0] in NOT_NAMES or not re.search(r"(?<!\w)" + re.escape(bare.casefold()) + r"(?!\w)", folded):
            continue
        if name != bare and ("the " + bare.casefold()) not in folded:
            return bare, (match.start("n") + 4, match.end("n"))
        return name, match.span("n")
    return None


_QUOTATION = re.compile(r"\"[^\"\n]{0,3000}\"|“[^”]{0,3000}”|^>.*$", re.MULTILINE)


#: An address: its words ("...-from-us-government") are a slug, not the text speaking.
_ADDRESS = re.compile(r"\b(?:https?://|www\.)[^\s)>\]]+")


def speaks_as_publisher(window: str) -> bool:
    """Whether the text speaks in the first person plural outside what it quotes of others and the
    addresses it cites."""
    return FIRST_PERSON.search(_QUOTATION.sub(" ", _ADDRESS.sub(" ", window))) is not None


#: A timeline heading: the responders' own log of the incident ("## Timeline", "Incident timeline:",
#: "# Timeline of Events", "Timeline (UTC)", a printed page's plain "Timeline" line), also as a
#: bullet's bold label ("- **Timeline**:"; a plain bullet "- Timeline" is a contents list's entry)
#: and under its other name, "Key events".
_TIMELINE_HEADING = re.compile(
    r"^(?:[-*+][ \t]+(?=\*\*))?(?:#{1,6}[ \t]*|=+[ \t]*)?(?:\*\*)?(?:(?:incident[ \t]+|event[ \t]+)?timeline|key[ \t]+events)"
    r"(?:[ \t]+of[ \t]+(?:the[ \t]+)?(?:events|incident|outage))?(?:[ \t]*\([^)\n]{1,20}\))?"
    r"(?:\*\*)?[ \t]*:?[ \t]*(?:\*\*)?[ \t]*=*[ \t]*$", re.IGNORECASE | re.MULTILINE)
#: A name used as running software right after it: "Zorbq nodes", "Zorbq v3.2.3", "the Zorbq process".
SOFTWARE_USE = (r"\s+(?:nodes?|clients?|process(?:es)?|binar(?:y|ies)|v?\d+\.\d+\S*|versions?|releases?"
                 r"|features?|(?:debug\s+)?logs)\b")


#: Functions and technologies a team is named after ("Infrastructure", "Moderation", "HPC"): a
#: kind of team, never a publisher's name. Words that also close company names ("Network",
#: "Systems", "Cloud") are left out: "the Acme Network team" may be Acme Network's.
_TEAM_FUNCTIONS = (r"infrastructure|infra|operations|ops|SRE|engineering|platform|devops|moderation|security|"
                   r"support|database|DBA|storage|HPC|IT|sysadmins?|release|QA|admins?")
#: The kind of team closing a team's name ("the Acme Infrastructure team", "the Acme Moderation team").
TEAM_KIND = re.compile(r"(?<=\S)\s+(?:" + _TEAM_FUNCTIONS + r")$", re.IGNORECASE)
#: A team's name that is only its function or technology ("the HPC team", "the IT Security team"):
#: a department of whoever writes, or of the university or host it works for, not a publisher.
TEAM_FUNCTION = re.compile(r"(?:" + _TEAM_FUNCTIONS + r")(?:\s+(?:" + _TEAM_FUNCTIONS + r"))*", re.IGNORECASE)
#: A function qualified by the words a department's name puts before it ("the Cloud Security team",
#: "the Customer Support team", "the Site Reliability Engineering team"): with the function taken
#: off as a kind of team, "Cloud", "Customer" or "Site Reliability" were read as the publisher.
#: Only the whole name counts: "the Acme Cloud Security team" is still Acme Cloud's.
TEAM_QUALIFIED_FUNCTION = re.compile(
    r"(?:(?:cloud|network|systems|data|information|technical|customer|product|application|site|reliability"
    r"|production|internal|corporate|enterprise|" + _TEAM_FUNCTIONS + r")\s+){1,3}(?:" + _TEAM_FUNCTIONS + r")",
    re.IGNORECASE)
#: What a team leaves off its organisation's name when it says "the Acme team" and the text writes
#: "Acme CI" elsewhere: the longer form is the publisher's name.
ORGANISATION_SUFFIX = r"\s+(?:CI|Labs|Foundation|Inc\.|Ltd\.|LLC|GmbH)(?![\w-])"


def is_sign_off(text: str, match: re.Match) -> bool:
    """Whether the team's name closes a short line of its own: the authors signing ("Jo and the
    Acme team.", "Love, the Acme team!")."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    line_end = text.find("\n", match.end())
    line_end = len(text) if line_end < 0 else line_end
    return line_end - line_start <= 60 and text[match.end():line_end].strip() in ("", ".", "!")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence (or line) around ``text[start:end]``."""
    before = max(text.rfind("\n", 0, start), *(text.rfind(mark, 0, start) for mark in (". ", "! ", "? ")))
    after = [at for at in (text.find(mark, end) for mark in ("\n", ". ", "! ", "? ")) if at >= 0]
    return text[before + 1:min(after, default=len(text))]


#: Words with which a document calls itself an incident report ("Incident Report for ...",
#: "Post-Mortem", "Retrospective").
_REPORT_WORDS = re.compile(r"\b(?:incident\s+report|post[- ]?mortem|retrospective|root[- ]cause\s+analysis|"
                           r"incident\s+review)\b", re.IGNORECASE)


def calls_itself_a_report(text: str, body_start: int, title: tuple[str, list] | None) -> bool:
    """Whether the title or a heading calls the document an incident report (a publisher's own;
    a catalogue's entry is headed by what happened: "Impact", "References")."""
    headings = re.findall(r"^#{1,6}[ \t]+(.*)$", text[body_start:body_start + 30000], re.MULTILINE)
    return any(_REPORT_WORDS.search(line) for line in [title[0] if title and title[0] else "", *headings])


#: Words before a name that set its organisation beside the writers as one who helped them ("our
#: friends at Acme", "with the help of Acme", "working together with the Acme team", "thanks to").
_HELPER_BEFORE = re.compile(r"(?i)(?:\b(?:friends|partners|colleagues|folks)\s+(?:at|from)|\b(?:together|jointly|working|"
                            r"worked)\s+with|\bhelp\s+(?:of|from)|\bthanks\s+to|\bsupport\s+from)(?:\s+the)?\s*\[?$")


def named_as_helper(text: str, start: int) -> bool:
    """Whether the name at ``start`` follows words naming one who helped the writers ("our friends
    at [Acme](...)", "working together with the Acme team, we found"): another organisation."""
    return _HELPER_BEFORE.search(text, max(0, start - 60), start) is not None


#: A link's words that name the writers' own thing ("[our failover tool](...)", "[my notes](...)").
_OWN_WORDS = re.compile(r"[ \t]*(?:[Oo]ur|[Mm]y)\b")


def links_a_helper(text: str, link: re.Match) -> bool:
    """Whether a markdown link (its words in group 1) stands where one who helped the writers is
    named ("thanks to [Acme](https://acme.org)"); "thanks to [our new tool](...)" links the
    writers' own work, whose host is theirs."""
    return named_as_helper(text, link.start()) and not _OWN_WORDS.match(link.group(1))


def has_timeline(text: str, body_start: int) -> bool:
    """Whether the body holds a timeline heading of its own (a responder's log of the incident)."""
    return _TIMELINE_HEADING.search(text, body_start, min(len(text), body_start + 30000)) is not None
