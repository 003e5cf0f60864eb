"""Whether a unit filed in a card field holds words a curator would keep as that field's item,
beyond the links and template placeholders it may be made of.

Two kinds of unit read as items but say nothing of their field: a link alone ("[here](...)",
"<https://...>", "More details in https://...", "see PR #123", "Root cause: [here](...)"), and a
template's unfilled placeholders ("{{ owner }}", "${owner}", "<fill in>", "[Describe the impact]",
"(TODO: create task)"). The units stay units (the unit model reads each beside its neighbours);
only the field labeler leaves them out of the card. A sentence that only leads into a list
("This was resolved by:", :func:`lead_in`) says nothing either (``units.says_nothing`` asks).
"""

from __future__ import annotations

import re

from pmparse.rules.headings import load_headings, normalise_heading

#: A Markdown link, inline or by reference ("[here][1]"), or an HTML anchor (its label in a
#: group, its address skipped), an address in angle brackets, or a bare address. Bounded runs: a hostile line costs linear time.
_LINK = re.compile(
    r"!?\[(?P<label>[^\[\]\n]{0,300})\](?:\([^()\s]{0,2000}(?:[ \t]+\"[^\"\n]{0,200}\")?\)|\[[^\[\]\n]{0,100}\])"
    r"|<[aA][ \t\n][^<>]{0,2000}>(?P<anchor>[^<>]{0,300})</[aA][ \t]*>"
    r"|<(?:https?|ftp|mailto):[^<>\s]{1,2000}>"
    r"|(?:https?://|www\.)[^\s<>()\[\]]{1,2000}"
)
#: A bare address, inside a link's label ("[https://x.org/a](https://x.org/a)").
_ADDRESS = re.compile(r"(?:https?://|www\.)\S{1,2000}")
#: A reference to a tracker entry without an address: "#123", "PR#45", "!17" (a merge request).
_REFERENCE = re.compile(r"(?<![\w&])(?:[A-Za-z]{1,12})?[#!]\d{1,8}\b")
_WORD = re.compile(r"[^\W\d_]{2,}")
#: Words that point at a link or name what it points to ("More details in", "Being tracked in",
#: "Related commit:", "Bugzilla bug", "see issue"): around a link they say where to read, not what
#: happened.
_POINTER_WORDS = frozenset("""
see also here there link links linked more details detail detailed info information read at in on for to
the a an this that these those of and or as is are be can please refer reference references ref related
same cf follow followup follow-up up being issue issues ticket tickets bug bugs pr prs pull request requests mr
commit commits patch patches task tasks phab phabricator bugzilla gerrit jira github gitlab doc docs
document documentation post mortem postmortem post-mortem internal thread discussion slack chat gist page
wiki action point item items tracked tracking tracker branch release source report full further below
above diff url
""".split())
#: A link's label that makes an action item or a detection item: a ticket's title names the
#: promised work ("[Add retries to the fetcher](...)"), an alert's or a dashboard's name what
#: noticed ("[CPU-Critical alert](...)"), so two words of their own are enough.
_NAMING_LABEL_WORDS = 2
#: The fields where the thing linked is the item itself (see :data:`_NAMING_LABEL_WORDS`).
_NAMING_FIELDS = frozenset({"action_items", "detection"})
#: Elsewhere a label names what the link points to (a release, a branch, a dashboard, a chat
#: message: "[Data 100](...)", "[v1.2.3](...)"), not the symptom or cause itself; only a label
#: long enough to be a statement of its own counts as the item's words.
_LABEL_WORDS = 4


#: An item or a label that opens with work done to a thing ("Release the patch", "Document the
#: release", "[x] Commit the patch"): the verb and its object are pointing words elsewhere
#: ("Release: v1.2", "Related patch:"), here they say what was or will be done. The article marks
#: the verb ("Release branch: ..." and "Pull request #4" name a link); a preposition, an adverb or
#: a word naming the link's details after it is no object ("Link to the ticket", "Commit the
#: details: ..."), nor is a word before a colon ("Release the notes: ..."). Bounded runs.
_ACTION = re.compile(
    r"[\W_]{0,20}(?:\[[ xX]\][\W_]{0,20})?(?:please[ \t]+)?"
    r"(?P<verb>release|patch|commit|document|report|link|branch|post|request|pull|diff)[ \t]+"
    r"(?:the|an?|this|that|these|those)[ \t]+(?P<object>[^\W\d_]{2,40})\b(?![ \t]{0,20}:)",
    re.IGNORECASE,
)
#: Words after "Release the" that name no thing the work is done to.
_NO_OBJECT = frozenset("""
see also here there more details detail detailed info information read at in on for to of and or as is are be
can please up same cf below above further full following link links url
""".split())


def _words(text: str) -> int:
    """How many words of ``text`` say something: words that only point at a link are not
    counted, unless they open the text as an action on a thing (:data:`_ACTION`)."""
    count = at = 0
    # a loop, not a call per action: a long item of actions ran out of Python's stack
    while (action := _ACTION.match(text, at)) and action.group("object").casefold() not in _NO_OBJECT:
        count += 2
        at = action.end()
    return count + sum(1 for word in _WORD.findall(text, at) if word.casefold() not in _POINTER_WORDS)


#: A heading's words opening an item as a label: "Root cause:", "**Action items**:", "Root cause -",
#: a table row's first cell ("| Trigger |"). Bounded runs: the label is short.
_HEADING_LABEL = re.compile(
    r"[ \t|*_]{0,20}(?P<head>[^:|\n–—]{1,60}?)[ \t*_]{0,20}(?::|\||[ \t]-[ \t]|–|—)")
#: What may stand around a heading's words that are an item's only words ("**Root cause**").
_HEADING_EDGES = " \t\n|*_:-–—."


def _is_heading(words: str) -> bool:
    """Whether ``words`` are a heading's (the packaged heading table's synonyms, so also each
    field's name: "Root cause", "root_cause", "Lessons learned", "Timeline")."""
    words = words.strip(_HEADING_EDGES)
    return bool(words) and len(words) <= 60 and load_headings().is_known(words)


#: Heading words that are also a verb: as the label of an action or remediation item before a
#: tracker reference ("Fix: PR #4521", "Fixes: PR #4521", "[Optional] Fix: PR #4521") they say
#: what was or will be done, the reference where. "Follow-up:" is no such verb: it says where the
#: work is followed, not what it is.
_VERB_LABELS = frozenset({"fix", "fixes"})
#: The fields whose items are work done or promised (see :data:`_VERB_LABELS`).
_WORK_FIELDS = frozenset({"action_items", "remediation"})


def _without_heading(own: str, field: str) -> str:
    """``own`` without a heading's words that label it ("Root cause: ..."), or empty when they
    are all it says: a link filed under its field's own name says no more than the link alone.
    A verb's label of work (:data:`_VERB_LABELS`) stays: it is the item's action."""
    label = _HEADING_LABEL.match(own)
    if label and _is_heading(label.group("head")):
        head, rest = label.group("head"), own[label.end():]
    elif _is_heading(own):
        head, rest = own, ""
    else:
        return own
    if field in _WORK_FIELDS and normalise_heading(head) in _VERB_LABELS:
        return own
    return rest


#: A verb of work opening an item, as a label or not, before what it was done in: "Fix: PR #4521",
#: "- **Fixes** - #4521", "Reverted #4521" (a bullet's marker and emphasis around it). Bounded runs.
_WORK_VERB = re.compile(
    r"[ \t]{0,20}(?:[-*+][ \t]{1,20})?[*_]{0,3}(?:fix(?:e[sd])?|hotfix(?:e[sd])?|revert(?:ed|s)?)[*_]{0,3}"
    r"[ \t]{0,20}(?:[:|\-–—][ \t]{0,20})?(?=\S)",
    re.IGNORECASE,
)


def work_on_reference(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` is a verb of work before a link or a tracker reference alone
    ("Fix: PR #4521", "- **Fixes**: [PR 4521](...)", "Reverted #4521"): one item whose verb is its
    action, neither a heading whose section would hold a bare reference nor a unit of too few
    words to say anything."""
    end = len(text) if end is None else end
    verb = _WORK_VERB.match(text, start, end)
    # the strictest field's reading of what follows: a statement's worth of a ticket's title is
    # words of its own, and a "Fix:" before it stays a heading over them, as before
    return bool(verb) and link_only(text, verb.end(), end, "root_cause")


#: A priority tag before an item's one word ("[P1] Cleanup", "(P2) Reindex"): it marks the word
#: as promised work, as "[Optional]" does. Bounded runs.
_PRIORITY_TAGGED = re.compile(
    r"[ \t]{0,20}(?:[-*+][ \t]{1,20})?(?:(?:\[[ \t]{0,5}(?:p[0-4]|prio(?:rity)?[ \t:-]{0,5}(?:p?[0-4]|low|medium|high))"
    r"[ \t]{0,5}\]|\((?:p[0-4])\))[ \t]{0,20}){1,3}[^\W\d_]{2,40}[.!]?[ \t]{0,20}",
    re.IGNORECASE,
)


def short_action(text: str, start: int, end: int, field: str) -> bool:
    """Whether the item ``text[start:end]``, too short to say anything as other units are (fewer
    than two words), is still work done or promised in ``field``: a one-word action after a
    priority tag ("[P1] Cleanup") or a verb of work before a reference ("Fixes #4521",
    :func:`work_on_reference`). Only in the fields of work: elsewhere they name no cause or
    symptom."""
    if field not in _WORK_FIELDS:
        return False
    return bool(_PRIORITY_TAGGED.fullmatch(text, start, end)) or work_on_reference(text, start, end)


def link_only(text: str, start: int, end: int, field: str) -> bool:
    """Whether the item ``text[start:end]`` filed in ``field`` is a link alone: it holds a link or
    a tracker reference, and without them no word of its own says anything ("[here](...)",
    "<https://...>", "More details in https://...", "See PR #123", "Root cause: [here](...)": a
    heading's words, the field's own name among them, only label the link), unless a link's label
    does. Pointing words that open the item as work done to a thing say something ("Release the
    patch (#45)", :data:`_ACTION`). What a label counts for depends on the field: in
    ``action_items`` the link to a ticket with its title is the promised work ("[Add retries to
    the fetcher](...)"), in ``detection`` the link to an alert with its name is what noticed
    ("[CPU-Critical alert](...)"), while in a field that tells what happened a short label only
    names the page linked ("[link](...)", "[Data 100](...)"), unless a heading's words before it
    say it is the field's ("Root cause: [expired TLS certificate](...)").
    """
    item = text[start:end]
    if not (_LINK.search(item) or _REFERENCE.search(item)):
        return False
    least = _NAMING_LABEL_WORDS if field in _NAMING_FIELDS else _LABEL_WORDS
    labels: list[str] = []

    def keep_label(match: re.Match) -> str:
        label = match.group("label") or match.group("anchor")
        if label:
            labels.append(_ADDRESS.sub(" ", label))
        return " "

    bare = _REFERENCE.sub(" ", _LINK.sub(keep_label, item))
    own = _without_heading(bare, field)
    if _words(own):
        return False
    if own != bare:
        # a heading's words say the link's label is the field's: "Root cause: [expired TLS
        # certificate](...)" names the cause as a ticket's title names the work
        least = _NAMING_LABEL_WORDS
    return not any(_words(label) >= least for label in labels)


#: A template's unfilled placeholder: "{{ owner }}" (a name, three words at most: "{{ Enabling
#: logging across the hubs }}" is an author's words left inside the braces), a Liquid or ERB tag, a
#: shell-style "${date range of event}", a prompt in angle or square brackets ("<fill in>", "<Link to
#: the recording>", "[link to the issue]", "[<name> to fill in]", "[Describe the impact]", "[Date]";
#: not a link's label, "[Add retries](...)", a wiki link, "[[How to fail over]]", a field filled in,
#: "[Owner: kim]", nor an action's horizon, "[Short term]"),
#: a to-do note in brackets ("(TODO: create task)", "(TBD)"), a bare "TODO"/"TBD" or "To do #1".
#: Brackets, braces and parentheses may hold a line break: a plain-text page wraps "(TODO: create
#: task)" anywhere. One bounded run inside the braces: runs of spaces around a name's run cost a
#: hostile "{{" and a long line of spaces quadratic time.
_PLACEHOLDER = re.compile(
    r"\{\{[\w.|\"' \t\n-]{0,80}\}\}"
    r"|\{%[^%]{0,200}%\}"
    r"|<%[=-]?[^%]{0,200}-?%>"
    r"|\$\{[^{}$\n]{1,80}\}"
    r"|<[ \t]*(?:[a-z_-]{1,20}[ \t]+){0,5}?(?i:fill|insert|add|tbd|todo|describe|name|date|owner|link|summary|"
    r"description|here|your|title|team|time)(?:[ \t]+[A-Za-z_-]{1,20}){0,5}[ \t]*>"
    r"|\[[^\[\]]{0,80}?(?i:fill(?:ed)?\s+in|to\s+be\s+(?:filled|added|written)|link\s+to|insert|\btbd\b|\btodo\b)[^\[\]]{0,80}\](?!\()"
    r"|(?<!\[)\[[ \t]*(?i:describe|explain|summari[sz]e|list|add|enter|provide|include|write|(?:brief|short)(?![ \t-]term\b)|"
    r"optional|date|time|name|owner|title|your|who|what|when|why|how)\b(?![ \t]{0,5}:[ \t]{0,5}[^\s\]])[^\[\]]{0,80}\](?![(\[])"
    r"|\((?i:todo|tbd)\b[^()]{0,120}\)"
    r"|\b(?i:to[ \t]?do)[ \t]*#\d{1,3}"
    r"|\b(?:TODO|TBD)\b:?"
)
_PLACEHOLDER_NAME_WORDS = 3
#: A bracketed tag that qualifies an action rather than asks for words ("[Optional] Cleanup",
#: "[Optional, low priority] Cleanup", "[Optional - P2] Cleanup"): alone it says nothing, but the
#: word after it is the action, which a curator keeps. Only a priority or a horizon may follow
#: "optional": "[Optional, describe the cleanup]" is a prompt.
_TAG_PART = (r"(?:(?:low|lower|medium|normal|high|higher|top)[ \t-]priority|priority(?:[ \t]*:?[ \t]*"
             r"(?:low|medium|normal|high|p[0-4]))?|p[0-4]|nice[ \t-]to[ \t-]have|stretch(?:[ \t]goal)?|"
             r"(?:short|medium|long)[ \t-]term)")
_TAG = re.compile(r"\[[ \t]*optional(?:[ \t]*[,;/|-][ \t]*" + _TAG_PART + r"){0,3}[ \t]*\]", re.IGNORECASE)


def _unfilled(match: re.Match) -> bool:
    """A ``{{ ... }}`` holding an author's words (more than a name) is filled; every other match
    of :data:`_PLACEHOLDER` is a placeholder."""
    found = match.group()
    if found.startswith("{{"):
        return len(_WORD.findall(found)) <= _PLACEHOLDER_NAME_WORDS
    return True


def placeholder_only(text: str, start: int, end: int) -> bool:
    """Whether the item ``text[start:end]`` is a template's unfilled placeholders alone ("{{ owner
    }}", "{{ summary }} [link to github issue]", "To do #1 (TODO: Create task)", "<fill in>"):
    without them fewer than two words are left. An item that only holds one ("wait {{confs}}
    confirmations more than usual") keeps its words, the placeholder with them. A "${...}" inside a
    code span is the shell's variable of a command ("`kill ${PID}`"), no placeholder."""
    item = text[start:end]
    folded = item.casefold()
    if not any(mark in folded for mark in ("{", "<", "[", "todo", "tbd", "to do")):
        return False
    removed = prompts = 0
    rest = []
    at = seen = ticks = 0
    for match in _PLACEHOLDER.finditer(item):
        ticks += item.count("`", seen, match.start())
        seen = match.start()
        if _unfilled(match) and not (ticks % 2 and match.group().startswith("${")):
            rest.append(item[at:match.start()])
            at = match.end()
            removed += 1
            prompts += not _TAG.fullmatch(match.group())
    if not removed:
        return False
    rest.append(item[at:])
    # beside a tag, one word is the item's action ("[Optional] Cleanup"); beside a prompt, one
    # word is the prompt's label ("[Owner: ] Reindex", "Owner: {{ owner }}")
    return len(_WORD.findall(" ".join(rest))) < (2 if prompts else 1)


#: The words a sentence leading into a list is made of when it says nothing of its own ("This was
#: resolved by:", "We verified that:", "The outage resulted from three compounding factors:"):
#: function words, counts, the names of a list's parts and the verbs that file them under a field.
_LEAD_IN_WORDS = frozenset("""
this that these those it there here we our us the a an and or of to in on at by for with as from now also then
is are was were be been being has have had do does did will would can could should may might
following follows below next several some many few multiple various two three four five six
main key major primary direct compounding other further additional more
factor factors thing things step steps issue issues problem problems reason reasons point points item items
change changes action actions measure measures option options condition conditions cause causes
lesson lessons question questions observation observations detail details event events fact facts
part parts area areas way ways play outage outages incident incidents failure
resolved fixed mitigated caused due done taken take took include includes included including
contributed contribute contributing led lead leads learned learnt identified found determined
verified confirmed noticed observed considered focused committed made happen happened occurred
resulted result results after conducting post review mortem postmortem what went well wrong how why
changed commands
""".split())
#: A lead-in's closing colon, and the emphasis that may close around it ("**Lessons learned:**").
_LEAD_IN_END = re.compile(r":[*_ \t]*$")


#: A sentence ending its paragraph right above a list, a table or a code block (what may stand
#: between: its full stop, emphasis, blank lines). Bounded runs.
_LIST_BELOW = re.compile(r"[ \t.*_]{0,6}\n(?:[ \t]{0,8}\n){0,3}[ \t]{0,8}(?:[-*+][ \t]|\d{1,3}[.)][ \t]|\||```|~~~)")
#: The words that point a sentence at what comes below it ("the following steps", "Here is what
#: we changed", "as follows").
_POINTS_BELOW = re.compile(r"\b(?:following|below|here|follows)\b", re.IGNORECASE)
#: A sentence whose subject is the table or list below it ("The table below contains the
#: accounts ...", "The following list shows ..."): whatever it names, the table says it.
_TABLE_LEAD = re.compile(
    r"[\W_]{0,6}(?:the|this)\s+(?:(?:below|following)\s+(?:table|list|chart)|(?:table|list|chart)\s+below)\s+"
    r"(?:contains|lists|shows|gives|holds|summari[sz]es|details)\b", re.IGNORECASE)


def lead_in(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` only leads into what follows it: it ends with a colon and every
    word of it is one of :data:`_LEAD_IN_WORDS`. The list under it holds the items; a lead-in that
    names something ("The disk alert fired twice:") says something. Without its colon, the
    sentence must end its paragraph right above a list, a table or a code block and point at it
    ("We have taken the following steps", "Here is what we changed"), or have the table below as
    its subject ("The table below contains ...", :data:`_TABLE_LEAD`)."""
    if not _LEAD_IN_END.search(text, start, end):
        if not _LIST_BELOW.match(text, end):
            return False
        if _TABLE_LEAD.match(text, start, end):
            return True
        if not _POINTS_BELOW.search(text, start, end):
            return False
    words = _WORD.findall(text, start, end)
    return bool(words) and all(word.casefold() in _LEAD_IN_WORDS for word in words)


#: A length and nothing else ("2 hours 41 minutes", "21h 40m (within office hours 09:00-17:30)",
#: "~2h"): a labelled value ("Detection delay: ...", "Total impact duration: ...") filed as an
#: item, which the card's duration, not a symptom or a detection, holds. A note in brackets after
#: it counts only when it holds a time or a date (a number); "45 minutes (the queue was paused)"
#: says something. Bounded runs.
_LENGTH = r"\d{1,4}(?:[.,]\d{1,2})?[ \t]{0,2}(?:h|hrs?|hours?|m|mins?|minutes?|d|days?|s|secs?|seconds?|w|weeks?)\b"
_LENGTH_ONLY = re.compile(
    r"[\W_]{0,10}(?:(?:about|around|approx\.?|approximately|roughly|~)[ \t]{0,3})?" + _LENGTH +
    r"(?:[ \t]{0,3}(?:,|and)?[ \t]{0,3}" + _LENGTH + r"){0,3}"
    r"(?:[ \t]{0,3}\((?=[^()\n]{0,80}\d)[^()\n]{1,80}\))?[\W_]{0,10}",
    re.IGNORECASE,
)


def length_only(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a length alone (:data:`_LENGTH_ONLY`)."""
    return end - start <= 160 and _LENGTH_ONLY.fullmatch(text, start, end) is not None


#: The words of a clause of narrative or feeling that an apology goes on from ("It was a long
#: week", "We got many emails from you", "This makes for a maddening experience"): function
#: words, mail and messages received, and how the time felt. A clause with any other word (an
#: event, a system, a number: "The deploy deleted forty drafts", "We got many reports of failed
#: logins") states something of the incident.
_FEELING_WORDS = frozenset("""
it its this that these those there here we our us you your they them all everyone everybody the a an and or of to
in on at by for with as from so such what very really quite pretty extremely truly
is are was were be been being has have had do does did s ve re ll
got get gets getting received receive heard hear many lots lot plenty some several number whole
emails email mails mail messages message tweets questions comments replies feedback
rough tough hard difficult long tiring exhausting bad terrible awful stressful frustrating maddening
painful annoying disappointing unpleasant sad unfortunate busy
week weeks day days night nights weekend weekends month months time times while experience
makes made make leads led lead
""".split())
#: An apology with its object after a clause (the clause in ``clause``): "..., and we're very
#: sorry about these issues", "... and we apologise for the inconvenience", "..., and we're sorry
#: it took us so long". An object opening with "that" or a clause of its own ("we're sorry that the
#: migration removed your searches"), or a delay that says what it held up ("... it took us longer
#: to see that a fix was needed": a contributing factor), tells what happened and is no match.
#: Bounded runs.
_APOLOGY_AFTER = re.compile(
    r"[\W_]{0,6}(?P<clause>[^,;:.!?]{1,120}?),?\s+and\s+(?:"
    r"(?:we(?:'re|\u2019re|\s+are)|i(?:'m|\u2019m|\s+am))\s+(?:(?:very|truly|so|deeply|really|sincerely|extremely)\s+)*"
    r"sorry\s+(?:(?:for|about)\b[^,;:.!?]{0,120}|(?:that\s+)?it\s+took\s+(?:us\s+)?(?:(?:a\s+bit|a\s+little|so|this|too)\s+)?"
    r"long(?:er)?\b)"
    r"|we\s+(?:(?:sincerely|deeply|truly)\s+)?apologi[sz]e\s+for\b[^,;:.!?]{0,120})"
    r"[.!]?[\W_]{0,6}",
    re.IGNORECASE,
)


def apology_after_feeling(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is an apology after a clause of narrative or feeling only ("It was
    a long week, and we're truly sorry about the trouble."): like a bare apology it tells
    nothing the card does not. The clause's words are :data:`_FEELING_WORDS`, or a name inside it
    (a product's, capitalised: "a frustrating Zorbq experience")."""
    match = _APOLOGY_AFTER.fullmatch(text, start, end) if end - start <= 300 else None
    if match is None:
        return False
    words = re.findall(r"[^\W\d_]+", match.group("clause"))
    return bool(words) and all(word.casefold() in _FEELING_WORDS or (k > 0 and word[0].isupper())
                               for k, word in enumerate(words))


#: A sentence whose subject is the write-up itself ("This post-mortem documents both outages ...",
#: "This report aims to give a full account of ...", "This documents our move ...", "Note: this
#: report was originally published on ..."): what the document does, not what happened. A clause
#: of cause in it ("... an outage caused by ...") or a colon (what it goes on to say) is the
#: incident's. Bounded runs.
_WRITE_UP_ITSELF = re.compile(
    r"[\W_]{0,6}(?:note\s*:\s*)?this\s+(?:(?:(?:blog\s+)?post|report|document|write-?up|post-?mortem|retrospective|"
    r"incident\s+report)\s+(?:(?:aims|attempts|tries|is\s+meant)\s+to\s+|serves\s+as\b|will\s+|"
    r"was\s+(?:originally\s+|first\s+)?(?:published|posted)\b)?|(?=documents\b))"
    r"(?:documents?|describes?|covers?|summari[sz]es?|details?|outlines?|explains?|provides?|gives?|goes\s+over|"
    r"(?<=as)|(?<=published)|(?<=posted))\b"
    r"(?:[^.!?:;]|[.:](?=\S)){0,200}[.!]?[\W_]{0,4}",
    re.IGNORECASE,
)
_CAUSE_WORDS = re.compile(r"\b(?:caused|due\s+to|because|root\s+cause)\b", re.IGNORECASE)


def about_the_write_up(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` only says what the write-up itself does (:data:`_WRITE_UP_ITSELF`)."""
    return (end - start <= 300 and _WRITE_UP_ITSELF.fullmatch(text, start, end) is not None
            and not _CAUSE_WORDS.search(text, start, end))


#: The words of a date or a span of times standing alone ("Monday, Nov. 13, 2031", "Sep 6 at 05:25
#: to Sep 6 at 10:48", "Start: Wednesday, 2031-08-22 End: Thursday, 2031-08-23", "On the 27th of
#: November"): months, weekdays, numbers and clock times, time zones, and the words joining them.
_MOMENT_TOKEN = re.compile(
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?|mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?|sat(?:urday)?|"
    r"sun(?:day)?|\d{1,4}(?:st|nd|rd|th)?|[ap]m|utc|gmt|[a-z]{1,3}[sd]?t|at|to|on|from|until|till|and|between|of|the|"
    r"start|started|end|ended|began|begin|date|time)", re.IGNORECASE)
#: What makes words a moment: a month's or a weekday's name, an ISO date or a clock time.
_MOMENT_MARK = re.compile(r"(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)"
                          r"|\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}\b")


def moment_only(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a date or a span of times alone (:data:`_MOMENT_TOKEN`): the
    card's date and duration hold it."""
    if end - start > 100 or not _MOMENT_MARK.search(text, start, end):
        return False
    tokens = re.findall(r"[^\W_]+", text[start:end])
    return bool(tokens) and all(_MOMENT_TOKEN.fullmatch(token) for token in tokens)


def heading_only(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a known heading's words alone ("Action Items", "What
    happened?", "**Lessons learned**"): an unmarked heading line, which is no item."""
    return end - start <= 60 and _is_heading(text[start:end].rstrip("?"))


def no_content(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` only leads into a list (:func:`lead_in`), is a length, a date or
    a heading alone (:func:`length_only`, :func:`moment_only`, :func:`heading_only`), an apology
    after a clause of feeling (:func:`apology_after_feeling`) or the write-up speaking of itself
    (:func:`about_the_write_up`)."""
    return (lead_in(text, start, end) or length_only(text, start, end) or moment_only(text, start, end)
            or heading_only(text, start, end) or apology_after_feeling(text, start, end)
            or about_the_write_up(text, start, end))
