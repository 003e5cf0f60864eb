"""Who wrote the report: the organisation that speaks, from front matter, the source URL, the
text's self-references and site lines, its products, or the names it gives.

Pure functions over strings; :mod:`pmparse.nlp.components.facts` calls them.
"""

from __future__ import annotations

import functools
import re

from pmparse.locations import url_parts
from pmparse.nlp.extractors.gazetteer import Fact, Gazetteer, load_gazetteer
from pmparse.nlp.extractors.hosts import find_hosts
from pmparse.nlp.extractors.organisation_words import refused
from pmparse.nlp.extractors.publisher_cues import customers_brand, provider_speaks
from pmparse.nlp.extractors.organisation_title import title_subject
from pmparse.nlp.extractors.report_voice import (
    FIRST_PERSON, NOT_NAMES, ORGANISATION_SUFFIX, SOFTWARE_USE, TEAM_FUNCTION, TEAM_KIND, TEAM_QUALIFIED_FUNCTION,
    calls_itself_a_report, has_timeline, is_sign_off, links_a_helper, named_as_helper, sentence_around,
    speaks_as_publisher)
from pmparse.nlp.extractors.titles import locate
from pmparse.nlp.extractors.url_owner import (
    address_names,
    host_guess,
    name_from_host,
    name_keys,
    on_forge,
    slug_acronym,
    slug_name,
    written_owner,
)


ORG_KEYS = ("organisation", "organization", "company", "org", "owner_org", "publisher", "site", "sitename",
            "site_name")
#: Front matter keys that usually hold a person: an organisation only when the table knows the value.
AUTHOR_KEYS = ("author", "authors", "team")
#: A markdown link: its words and its address.
_LINKED = re.compile(r"\[([^\]]{1,200})\]\((https?://[^)\s]{1,500})\)")
_FORGE_OWNER = re.compile(r"\b(?:github\.com|gitlab\.com|bitbucket\.org)/(?P<owner>[A-Za-z0-9][\w.-]{0,38})/", re.IGNORECASE)
NAME_PATTERN = r"(?P<n>[A-Z][\w.&-]{1,30}(?:\s[A-Z][\w.&-]{1,30}){0,3})"
# self-references open with the letter Python's re skips to; \b follows it as a look-behind (the
# same meaning: the plain forms are in tests/components/test_fact_patterns.py), because a leading
# \b made the scan try every position of the text
SELF_PATTERNS = [
    re.compile(r"[AaHh](?<!\w.)(?:(?<=[Aa])t|(?<=[Hh])ere at)\s+" + NAME_PATTERN + r",?\s+we\b"),
    re.compile(r"[Ww](?<!\w.)e\s+at\s+" + NAME_PATTERN + r"\b"),
    re.compile(r"[Ww](?<!\w.)e,?\s+(?:the\s+)?" + NAME_PATTERN + r"\s+team\b"),
]
#: Lines where a site names its owner: "Acme engineering blog", "© 2031 Acme Ltd".
OWNER_LINES = [
    # (?<![\w.]) moved after the name's capital, as in SELF_PATTERNS (the plain form is in the tests)
    re.compile(r"(?P<n>[A-Z](?<![\w.].)" + NAME_PATTERN[len("(?P<n>[A-Z]"):]
               + r"\s+(?:[Ee]ngineering|[Tt]ech|[Dd]eveloper|[Ii]nfrastructure)\s+[Bb]log\b"),
    # a notice stands on one line and opens a word: "Copyright" inside a setting's name
    # ("cfgUseCopyrightBanner") is no notice, and a holder the print pushed onto the next line
    # belongs to a program quoted from a log ("kernel: nf_quux: (C) 2010-2012"), not to the site
    # (white space but a line break: an HTML footer spaces it with no-break spaces, "©&nbsp;2031")
    re.compile(r"(?:©|\([Cc]\)|(?<![A-Za-z])[Cc]opyright)[^\S\n]*(?:\([Cc]\)[^\S\n]*)?"
               r"(?:\d{4}(?:[^\S\n]*[-–][^\S\n]*\d{4})?,?[^\S\n]+)?" + NAME_PATTERN.replace(r"(?:\s[A-Z]", r"(?:[^\S\n][A-Z]")),
]
#: A report of the whole project in the third person ("the Acme infrastructure team restarted").
TEAM_PATTERN = re.compile(r"\b[Tt]he\s+" + NAME_PATTERN + r"\s+(?:infrastructure\s+|infra\s+|operations\s+|ops\s+|SRE\s+)?"
                   r"(?:team|project|maintainers)\b")
#: A site name that is a host name: labels joined by dots, the last of letters.
_HOST_NAME = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}")


# --- organisation ---------------------------------------------------------------------------


def host_of(value: str, name: str) -> bool:
    """Whether ``value`` opens with a host name on the domain of the organisation ``name``
    (``ci.zorbq.io``, ``repo.zorbq-ci.org SSL`` for ``Zorbq``): its domain's label is the name, or
    opens with it before a "-"."""
    host = value.split()[0] if value.split() else ""
    if "." not in host or not _HOST_NAME.fullmatch(host):
        return False
    label = (name_from_host(host) or "").casefold()
    wanted = " ".join(name.split()).casefold()
    return bool(label) and (label == wanted or label.split("-")[0] == wanted)


def find_organisation(text: str, body_start: int = 0, location: str = "", title: tuple[str, list] | None = None,
                      front: dict | None = None, front_region: tuple[int, int] | None = None,
                      gazetteer_path: str | None = None, meta: dict | None = None) -> Fact | None:
    """Who ran the failing service and wrote the report, by the rules alone (the facts component
    ranks these rules' findings among other candidates: :mod:`pmparse.nlp.extractors.organisation_rank`).

    The rules below, then a last check: a value that is never an organisation (a weekday, a role,
    a heading word, a file name, a tool named without being stated as the publisher:
    :func:`~pmparse.nlp.extractors.organisation_words.refused`) gives None.
    """
    fact = _cascade(text, body_start, location, title, front, front_region, gazetteer_path, meta)
    if fact is not None and refused(fact["value"], fact["origin"]):
        return None
    return fact


def _cascade(text: str, body_start: int = 0, location: str = "", title: tuple[str, list] | None = None,
             front: dict | None = None, front_region: tuple[int, int] | None = None,
             gazetteer_path: str | None = None, meta: dict | None = None) -> Fact | None:
    """Who ran the failing service and wrote the report, by the first rule that names one.

    Evidence in order of trust: front matter (``organisation``, ``company`` ...), the source URL
    when its host or forge account belongs to a gazetteer organisation, self-references ("At
    Acme, we", "we at Acme"), names, hosts and site names of known organisations in the title and
    text, and last a name guessed from an unknown URL host or forge account. A vendor many reports
    depend on (``provider`` in the gazetteer) is taken only from the first three. The folder a file
    sits in is not evidence.

    Args:
        text: The source text.
        body_start: Where the body starts (after front matter).
        location: The source's path or URL.
        title: ``(title, evidence)`` of the document, when known.
        front: Front matter values.
        front_region: Where the front matter stands in the text.
        gazetteer_path: A replacement organisation gazetteer.
        meta: What the HTML extractor found (``sitename``).

    Returns:
        The fact, or None when nothing in the source names the organisation.
    """
    gaz = load_gazetteer(gazetteer_path)
    front = front or {}
    for key in ORG_KEYS:
        if front.get(key):
            value = str(front[key])
            entry = gaz.by_alias.get(value.lower())
            if entry is None and site_slug(key, value):
                continue
            return {"value": entry.name if entry else value, "evidence": locate(text, value, front_region),
                    "confidence": 0.95, "origin": "front_matter"}
    for key in AUTHOR_KEYS:
        entry = gaz.by_alias.get(str(front.get(key) or "").strip().lower())
        if entry is not None:
            return {"value": entry.name, "evidence": locate(text, str(front[key]), front_region),
                    "confidence": 0.85, "origin": "front_matter"}
    # the source URL: a known organisation's domain or forge account is strong evidence; a name
    # guessed from an unknown host or account is kept for when the text names nobody (a forge
    # account is often a project's, not the organisation's: jupyterhub for mybinder.org)
    guessed: Fact | None = None
    forge_guess = False  # the guess is a forge account's slug
    parts = url_parts(location)
    if parts is not None:
        host = (parts.hostname or "").lower()
        if on_forge(host):
            owner = next((p for p in parts.path.split("/") if p), None)
            if owner:
                entry = gaz.by_alias.get(owner.lower())
                if entry is not None:
                    return {"value": entry.name, "evidence": [], "confidence": 0.8, "origin": "url"}
                guessed = {"value": owner, "evidence": [], "confidence": 0.45, "origin": "url"}
                forge_guess = True
        else:
            name, entry = host_guess(gaz, location, host)
            if entry is not None:
                # a forge's pages of a known account weigh as the account's address does (0.8)
                confidence = 0.9 if gaz.domain(host) is entry else 0.8
                return {"value": entry.name, "evidence": [], "confidence": confidence, "origin": "url"}
            if name:
                guessed = {"value": name, "evidence": [], "confidence": 0.5, "origin": "url"}
    # the address's owner as the text writes it ("travis-ci" is "Travis CI"): the publisher of a
    # text that speaks in the first person; else kept for when no other rule names one
    # each read once, when a rule below first needs it
    mentioned = functools.cache(lambda: mentions(gaz, text, body_start, front_region, title))
    speaks = functools.cache(lambda: speaks_as_publisher(text[body_start:body_start + 30000]))
    timeline = functools.cache(lambda: has_timeline(text, body_start))
    owner = address_owner(gaz, text, body_start, location)
    if owner is not None:
        written = owner.pop("written")
        if speaks() and not _known_outnumbers(gaz, mentioned()[0], owner["value"], written):
            return owner
        guessed = owner
    elif forge_guess:
        # a forge account the text never writes: a name only when it marks itself as an organisation's
        slug = slug_name(location)
        acronym = slug_acronym(text, location, body_start) if slug is None else None
        guessed = ({**guessed, "value": slug} if slug is not None
                   else {**guessed, "value": acronym[0], "evidence": acronym[1][:5]} if acronym is not None else None)
    # self-references: the text speaks as the organisation, or a site line names its owner
    for pattern in [*SELF_PATTERNS, *OWNER_LINES]:
        for match in pattern.finditer(text, body_start, min(len(text), body_start + 30000)):
            # a dot before white space ends the sentence, and the name ("© 2031 Acme Ltd. All rights
            # reserved" is Acme Ltd's)
            name = re.split(r"\.\s", match.group("n"), maxsplit=1)[0].rstrip(".")
            if name.split()[0] in NOT_NAMES or refused(name, "self_reference"):
                continue
            entry = gaz.by_alias.get(name.lower())
            return {"value": entry.name if entry else name,
                    "evidence": [(match.start("n"), match.start("n") + len(name))],
                    "confidence": 0.85 if entry else 0.7, "origin": "self_reference"}
    spoken = provider_speaks(gaz, text, body_start, title)
    if spoken is not None:
        return spoken
    brand = customers_brand(text, body_start)
    if brand is not None and not refused(brand[0]):
        entry = gaz.by_alias.get(brand[0].lower())
        return {"value": entry.name if entry else brand[0], "evidence": [brand[1]], "confidence": 0.6,
                "origin": "product"}
    site = (meta or {}).get("sitename")
    if site:
        entry = gaz.by_alias.get(site.lower())
        # a host name ("2acme.pagerduty.com", an extractor's fallback when a page names no site)
        # names the server, often a vendor's, not who wrote the page; "Booking.com" is a brand
        host = _HOST_NAME.fullmatch(site) is not None and (site.lower() == site or site.count(".") >= 2)
        if entry is not None or (re.fullmatch(r"[A-Z0-9][\w.&' -]{1,40}", site) and not host):
            return {"value": entry.name if entry else site, "evidence": locate(text, site, (body_start, len(text))),
                    "confidence": 0.7, "origin": "html_meta"}
    # mentions of known organisations: names, hosts, site names
    scores, evidence = mentioned()
    subject = None
    if title and title[0] and not speaks() and not timeline():
        # nobody speaks: a summary of someone else's incident is about the one its title names,
        # unless the text names one organisation again and again (a status note about its own hosts);
        # a text keeping its own timeline is the responders' report even in the passive voice, and
        # its title's subject is what failed under them ("Zorbq Cloud billing issue causes downtime")
        subject = title_subject(gaz, text, body_start, title)
        if subject is not None and refused(subject["value"], subject["origin"]):
            subject = None  # a heading word or a tool the title names is nobody's report
        if subject is not None and guessed is not None and host_of(subject["value"], guessed["value"]):
            # a host of the address's own domain in the title ("ci.zorbq.io down") is the owner's
            # service, not a publisher of its own: the title and the address agree on the owner
            host = subject["value"].split()[0]
            cited = [(s, s + len(host)) for s, _ in subject["evidence"] if text[s:s + len(host)] == host]
            return {**guessed, "evidence": cited, "confidence": max(guessed["confidence"], 0.6)}
    # a tool the text names (the chat the team met in) is never the answer: it must not hide the rest
    scores = {name: score for name, score in scores.items() if not refused(name)}
    best = max(scores, key=lambda name: (scores[name], -min(s for s, _ in evidence[name]))) if scores else None
    known_subject = subject is not None and gaz.by_alias.get(subject["value"].lower()) is not None
    if subject is not None and not known_subject and owner is not None:
        # the address's owner, written in the text, over a name only the title gives (a network
        # upgrade's retrospective in its project's repository is titled by the upgrade: "Zorbq")
        subject = None
    if subject is not None and (best is None or subject["value"] == best or (scores[best] < 2 and known_subject)
                                or scores[best] < 1):
        return subject
    if best is None:
        team = _named_team(gaz, text, body_start, speaks())
        if team is None and forge_guess and guessed is not None and not guessed["evidence"] and not speaks() and not (
                timeline() or calls_itself_a_report(text, body_start, title)):
            # a text nobody speaks in, with no timeline of its own and not calling itself a report,
            # tells someone else's incident (a catalogue entry): the repository holding it is its
            # curator's, not its publisher's, and the text never writes that name. (A host's own
            # site, "status.acme.io", still names the publisher of a third-person status note.)
            return None
        return team or guessed
    score = scores[best]
    others = sum(v for k, v in scores.items() if k != best)
    confidence = min(0.9, 0.55 + 0.08 * score) * (score / (score + others))
    return {"value": best, "evidence": sorted(evidence[best])[:3], "confidence": round(confidence, 3),
            "origin": "text"}


#: Front matter keys naming a site, whose lower-case slug value ("site: freiburg") picks a site
#: configuration or a place, not a publisher.
_SITE_KEYS = ("site", "sitename", "site_name")


def site_slug(key: str, value: str) -> bool:
    """Whether a front matter ``key: value`` is a site key holding a lower-case slug."""
    return key in _SITE_KEYS and re.fullmatch(r"[a-z][a-z0-9_-]{0,40}", value.strip()) is not None


def address_owner(gaz: Gazetteer, text: str, body_start: int, location: str) -> Fact | None:
    """The source address's owner as the text writes it (:func:`~pmparse.nlp.extractors.url_owner.written_owner`),
    with the table's name when the table knows it; None when the text writes none of its names or
    the name is never an organisation."""
    found = written_owner(text, location, body_start, min(len(text), body_start + 60000))
    if found is None:
        return None
    form, spans, _ = found
    entry = gaz.by_alias.get(form.lower()) or _account_known_in_full(gaz, form, location)
    value = entry.name if entry else form
    if refused(value, "url"):
        return None
    return {"value": value, "evidence": spans[:3], "confidence": 0.75, "origin": "url", "written": len(spans)}


def _account_known_in_full(gaz: Gazetteer, form: str, location: str):
    """The table's entry a forge account names in full when the text writes only its first word:
    "zorbq-ci" written "Zorbq" is the table's "Zorbq CI" (a team shortens its own name)."""
    written = re.sub(r"[^0-9a-z]", "", form.casefold())
    for kind, name in address_names(location):
        full = (name_keys(name, kind) or [""])[0] if kind == "account" else ""
        if not written or full == written or not full.startswith(written):
            continue
        for entry in gaz.entries:
            if any(re.sub(r"[^0-9a-z]", "", alias.casefold()) == full for alias in (entry.name, *entry.aliases)):
                return entry
    return None


def _known_outnumbers(gaz: Gazetteer, mentioned: dict[str, float], owner: str, written: int) -> bool:
    """Whether an organisation of the table the owner is not, and no provider, is named at least as
    often as the address's owner is written (``mentioned``: :func:`mentions`' scores): a repository
    of a software project's account that deploys a service ("jupyterhub/binder-deploy") is the
    service's, whose name the table knows."""
    if gaz.by_alias.get(owner.lower()) is not None:
        return False
    # a tool the team talked in ("Discord") is named often and is nobody's report
    scores = [score for name, score in mentioned.items() if not refused(name)]
    return bool(scores) and max(scores) >= max(written, 2)


def mentions(gaz: Gazetteer, text: str, body_start: int, front_region: tuple[int, int] | None,
             title: tuple[str, list] | None, providers: bool = False) -> tuple[dict[str, float], dict[str, list]]:
    """Mentions of the table's organisations: names, hosts, site names, products (at half weight) and
    owners of linked repositories, a title's at double weight, as ``(score by name, evidence by name)``.
    A provider's mentions count only when ``providers`` is set (the candidate ranker weighs them itself)."""
    scores: dict[str, float] = {}
    evidence: dict[str, list[tuple[int, int]]] = {}
    title_spans = title[1] if title else []

    def add(entry, weight: float, span: tuple[int, int]) -> None:
        if entry.provider and not providers:
            return
        scores[entry.name] = scores.get(entry.name, 0.0) + weight
        evidence.setdefault(entry.name, []).append(span)

    limit = min(len(text), body_start + 60000)
    taken: list[tuple[int, int]] = []
    # hosts in front matter count too: a status note lists the hosts it is about ("affected:")
    # a markdown link to a reference site whose words name something else cites a page there
    # ("[UTC](https://en.wikipedia.org/wiki/...)" explains a word): no mention of the site's owner
    cited = [(m.start(2), m.end(2), m.group(1)) for m in _LINKED.finditer(text, body_start, limit)]
    # an organisation named as one who helped the writers ("our friends at [Acme](https://acme.org)",
    # "with the help of Acme") is another than theirs: its name and the link's host are no mention
    helpers = [m.span() for m in _LINKED.finditer(text, body_start, limit) if links_a_helper(text, m)]

    def helped(span: tuple[int, int]) -> bool:
        return named_as_helper(text, span[0]) or any(s <= span[0] < e for s, e in helpers)

    for match in find_hosts(text, front_region[0] if front_region else body_start, limit):
        entry = gaz.domain(match.group(1))
        if entry is not None and helped(match.span(1)):
            taken.append(match.span(1))
        elif entry is not None:
            words = next((w for s, e, w in cited if s <= match.start(1) < e), None)
            host = match.group(1).lower()
            reference = any(host == d or host.endswith("." + d) for d in entry.reference_domains)
            if reference and words is not None and not any(n.casefold() in words.casefold()
                                                           for n in (entry.name, *entry.aliases, *entry.sites)):
                taken.append(match.span(1))
                continue
            add(entry, 1.0, match.span(1))
            taken.append(match.span(1))
    # the owner of a repository the text links to (its issue tracker) is weaker evidence
    window = text[body_start:limit]
    folded = window.lower()
    # the forge pattern needs one of these hosts: most texts link to none, and the scan is not free
    linked = any(host in folded for host in ("github.com/", "gitlab.com/", "bitbucket.org/"))
    for match in _FORGE_OWNER.finditer(text, body_start, limit) if linked else ():
        entry = gaz.by_alias.get(match.group("owner").lower())
        if entry is not None:
            add(entry, 0.5, match.span("owner"))
            taken.append(match.span("owner"))
    # substring tests done so far (alias -> found); an alias holding a shorter one that is absent
    # is absent too, and is not searched for (a third of the aliases hold another)
    present: dict[str, bool] = {}
    for (alias, entry, pattern), (lower, inner) in zip(gaz.aliases, gaz.alias_checks):
        # a substring test first: most aliases are absent, and one regex scan per alias over the
        # text was a sixth of the pipeline's time (lowercase aliases match case-insensitively)
        hay = folded if lower else window
        if inner is not None:
            found = present.get(inner)
            if found is None:
                found = present[inner] = inner in hay
            if not found:
                continue
        found = present.get(alias)
        if found is None:
            found = present[alias] = alias in hay
        if not found:
            continue
        for match in pattern.finditer(text, body_start, limit):
            span = match.span()
            if any(s <= span[0] < e for s, e in taken):
                continue
            taken.append(span)
            if helped(span):
                continue
            in_title = any(s <= span[0] < e for s, e in title_spans)
            # a product names its maker less surely than the maker's own name: it is used by others
            weight = 0.5 if alias in entry.products and alias not in entry.aliases and alias != entry.name else (
                1.5 if alias in entry.sites else 1.0)
            add(entry, 2 * weight if in_title else weight, span)
    return scores, evidence


def _named_team(gaz: Gazetteer, text: str, body_start: int, speaks: bool) -> Fact | None:
    """An organisation the table does not know, from the text naming its own team or project in
    the third person ("the Zorbq infrastructure team"): the name said most often that way.

    In a text that speaks in the first person, only where the sentence naming the team says "we" or
    "our" too ("the Acme team corrected our firewall"): elsewhere its authors say "we", and a team
    they name in the third person is another one (a client's team a coordinator quotes), unless they
    sign with it ("Jo and the Acme team."); ``speaks`` says whether the text speaks so. Nor a name
    the text also uses as running software ("Zorbq nodes", "Zorbq v3.2.3", "a Zorbq feature"):
    that team makes a product the report's service runs or depends on (issue 35: a network's
    retrospectives named the client teams they quote as their publisher)."""
    window = text[body_start:body_start + 30000]
    counts: dict[str, list[tuple[int, int]]] = {}
    for match in TEAM_PATTERN.finditer(text, body_start, min(len(text), body_start + 30000)):
        # "the Acme Infrastructure team" is Acme's: a capitalised kind of team is no part of the name
        if TEAM_QUALIFIED_FUNCTION.fullmatch(match.group("n").rstrip(".")):
            continue  # "the Cloud Security team": a department named by what it does, no publisher
        name = TEAM_KIND.sub("", match.group("n").rstrip("."))
        if name.split()[0] in NOT_NAMES or refused(name, "self_reference") or TEAM_FUNCTION.fullmatch(name):
            continue  # "the HPC team" names a function, the university's or the writer's, no publisher
        if re.search(r"(?<![\w-])" + re.escape(name) + SOFTWARE_USE, window):
            continue
        if speaks and not FIRST_PERSON.search(sentence_around(text, *match.span())) and not is_sign_off(text, match):
            continue  # "the Acme team corrected our firewall" is the speaker; "the Acme team found" is not
        if named_as_helper(text, match.start()):
            continue  # "working together with the Acme team, we found": a team that helped the writers
        counts.setdefault(name, []).append((match.start("n"), match.start("n") + len(name)))
    if not counts:
        return None
    name = max(counts, key=lambda n: (len(counts[n]), -counts[n][0][0]))
    entry = gaz.by_alias.get(name.lower())
    value = entry.name if entry else name
    if entry is None:
        # "the Zorbq team" of a text that writes "Zorbq CI" elsewhere: the team shortens its name
        full = re.search(r"(?<![\w-])" + re.escape(name) + ORGANISATION_SUFFIX, window)
        if full is not None:
            value = " ".join(full.group(0).split())
    return {"value": value, "evidence": counts[name][:3], "confidence": 0.55, "origin": "self_reference"}
