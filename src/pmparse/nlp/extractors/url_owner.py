"""The publisher a source's address names, as the text writes it (issue 35).

A postmortem published in a repository or on a site is its owner's: ``github.com/travis-ci/...``
is Travis CI's, ``community.hachyderm.io`` Hachyderm's, ``github.com/govau/cloud.gov.au`` is about
cloud.gov.au. The address gives the name only as a slug ("travis-ci", "usegalaxy-eu"); the text
gives its written form ("Travis CI", "UseGalaxy.eu"). This module reads the address's names (a
forge account and its repository, or a host's labels), drops the words that say what a repository
holds rather than whose it is ("incident-reports", "deploy", "status", "official"), and looks for
each remaining name in the text, compared on letters and digits alone: "Travis CI", "travis-ci"
and "TravisCI" are one name. Of the names the text writes, the one it writes most often wins (a
deploy repository of one project's account serves another project: ``jupyterhub/mybinder.org-deploy``
is about mybinder.org). A written form followed by an organisation word ("Foundation", "Network")
keeps it.

Without a written form a forge account is a name only when one word is left once its generic
parts are dropped ("comdex-official" gives "Comdex"); a slug of several words the text never
writes ("berkeley-dsep-infra") gives no name (on the labelled cards every such guess was wrong),
nor does one word too long to be one ("zorbqdigitalresponse" runs words together: no
capitalisation of it is its owner's name), unless the text writes its acronym ("ZDR").

Pure functions over strings; :func:`pmparse.nlp.extractors.organisation.find_organisation` and the
candidate ranker call them.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from pmparse.locations import url_parts
from pmparse.nlp.extractors.hosts import find_hosts

if TYPE_CHECKING:
    from pmparse.nlp.extractors.gazetteer import Gazetteer

#: Hosts of code forges: the first path segment of a URL there names the owner, the second its repository.
FORGES = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")
#: Parts of an account, repository or host name that say what it holds, not whose it is.
GENERIC_PARTS = frozenset({
    "org", "official", "inc", "hq", "infra", "dev", "team", "www", "status", "blog", "blogs", "docs", "doc", "website",
    "site", "web", "community", "deploy", "deployment", "incident", "incidents", "report", "reports", "postmortem",
    "postmortems", "post", "mortem", "mortems", "retrospective", "retrospectives", "pm", "landing", "ops", "public",
    "com", "net", "io", "www2", "engineering", "tech", "news", "pages", "github", "gitlab", "wiki", "md",
})
_TLDS = frozenset({"com", "org", "net", "io", "edu", "gov", "co", "uk", "au", "de", "eu", "fr", "dev", "app", "sh",
                   "ai", "cloud", "tech", "info", "me", "us", "ca", "nl", "ac", "jp", "in", "ch", "se", "no"})
#: Words that continue an organisation's name after its short form ("Wikimedia Foundation").
ORG_WORDS = ("Foundation", "Network", "Networks", "Inc", "Ltd", "LLC", "GmbH", "Labs", "Corporation", "Corp",
              "Group", "Company", "Institute", "University", "Association", "Society", "Consortium")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_SEPARATORS = frozenset(" .-_")
#: Fewest letters of a name part looked for alone (shorter parts match too much).
_MIN_PART = 3


_FORGE_SUFFIXES = tuple("." + forge for forge in FORGES)


def on_forge(host: str) -> bool:
    """Whether ``host`` (lower case) is a code forge or one of its subdomains."""
    return host in FORGES or host.endswith(_FORGE_SUFFIXES)


def _key(value: str) -> str:
    return "".join(_TOKEN.findall(value)).casefold()


def address_names(location: str) -> list[tuple[str, str]]:
    """The names an address gives, as ``(kind, name)``: ``account`` and ``repository`` on a forge,
    ``host`` labels elsewhere (the top-level domain and generic labels left out)."""
    parts = url_parts(location)
    if parts is None:
        return []
    host = (parts.hostname or "").lower()
    if on_forge(host):
        segments = [p for p in parts.path.split("/") if p]
        names = [("account", segments[0])] if segments else []
        if len(segments) > 1:
            names.append(("repository", segments[1]))
        return names
    labels = [label for label in host.split(".") if label]
    while labels and labels[-1] in _TLDS:
        labels.pop()
    return [("host", label) for label in reversed(labels) if label not in GENERIC_PARTS]


def name_keys(name: str, kind: str = "account") -> list[str]:
    """The keys a name is looked for by, each on letters and digits alone: the name without its
    generic parts (parts between "-" or "_"; a dotted part such as "mybinder.org" is a host and
    stays whole: "mybinder.org-deploy" is looked for as "mybinder.org"), and for an account its
    first part."""
    parts = [p for p in re.split(r"[-_]", name) if p]
    kept = [p for p in parts if p.casefold() not in GENERIC_PARTS]
    keys = [_key("".join(kept))]
    if kind == "account" and kept and len(_key(kept[0])) >= _MIN_PART:
        keys.append(_key(kept[0]))
    seen: list[str] = []
    for key in keys:
        if key and key not in seen and not key.isdigit():
            seen.append(key)
    return seen


def written_forms(text: str, key: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Where ``text`` writes the name ``key`` (letters and digits, case-folded) as a name: one to
    four runs of letters and digits joined by at most one of " .-_" (or a line end, where a
    hard-wrapped paragraph breaks the name), written with a capital, a digit or a dot, and not part
    of a path, an address or a longer word."""
    end = len(text) if end is None else end
    tokens = list(_TOKEN.finditer(text, start, end))
    spans = []
    for i, first in enumerate(tokens):
        if not key.startswith(first.group(0).casefold()):
            continue
        built, j = first.group(0).casefold(), i
        while built != key and j + 1 < len(tokens) and len(built) < len(key):
            gap = text[tokens[j].end():tokens[j + 1].start()]
            # a hard-wrapped paragraph breaks a name at a line end ("Travis\nCI"): a space
            if len(gap) != 1 or (gap not in _SEPARATORS and gap != "\n"):
                break
            j += 1
            built += tokens[j].group(0).casefold()
            if not key.startswith(built):
                break
        if built != key:
            continue
        s, e = first.start(), tokens[j].end()
        form = text[s:e]
        before, after = text[s - 1:s] if s else "", text[e:e + 1]
        if before in ("/", "@", ".", "-", "_") or after in ("/", "@", "-", "_") or (after == "." and re.match(
                r"\.[A-Za-z]", text[e:e + 2])):
            continue  # a path, an address, a host or a longer slug
        if not re.search(r"[A-Z0-9.]", form):
            continue  # a slug or a common word written in lower case
        spans.append((s, e))
    if spans and re.fullmatch(r"[A-Z][a-z]+", key.capitalize()) and all(
            re.fullmatch(r"[A-Z][a-z]+", text[s:e]) for s, e in spans):
        # one word capitalised only where a sentence starts or a heading: a common word ("Monitoring")
        # (the word in a path or an address is the slug, not the word)
        lower = len(re.findall(r"(?<![\w/.@-])" + re.escape(key) + r"(?![\w/@-])(?!\.\w)", text[start:end]))
        if lower >= len(spans):
            return []
    return spans


def written_owner(text: str, location: str, start: int = 0, end: int | None = None) -> tuple[str, list[tuple[int, int]], str] | None:
    """The address's name the text writes most often, as ``(written form, every span, kind)``; None when
    the text writes none of them. The form is the one written most often (one with a capital
    inside, "ZorbQ.io", before the host in lower case, "zorbq.io"), with an organisation
    word that follows it ("Wikimedia Foundation") when the text writes that."""
    best: tuple[bool, int, int, str, list[tuple[int, int]], str, str] | None = None
    hosts = None
    for rank, (kind, name) in enumerate(address_names(location)):
        # a repository named like a host ("mybinder.org-deploy") holds that site: its name wins
        site = _site_of(name) if kind == "repository" else None
        for key in name_keys(name, kind):
            spans = written_forms(text, key, start, end)
            if not spans and site is not None:
                hosts = _hosts(text, start, end) if hosts is None else hosts
                # the site named only by its hosts ("grafana.zorbq.org", in links too): its name
                on_site = [span for host, span, _ in hosts if host == site or host.endswith("." + site)]
                if on_site:
                    return site, on_site, kind
            if not spans:
                continue
            hosted = site is not None
            candidate = (hosted, len(spans), -rank, kind, spans, key, name)
            if best is None or candidate[:3] > best[:3]:
                best = candidate
            break
    if best is None:
        return _account_hosts(text, location, start, end, hosts)
    _, _, _, kind, spans, key, name = best
    forms = Counter(_written(text, s, e) for s, e in spans)
    # a form with a capital inside ("UseGalaxy.eu") is how the owner writes its name, however often
    # the text writes the host in lower case ("usegalaxy.eu"): one publisher, one spelling
    form = max(forms, key=lambda f: (any(c.isupper() for c in f[1:]), forms[f], any(c.isupper() for c in f)))
    rest = _organisation_rest(name, key) if kind == "account" else None
    if rest is not None and expansion(text, form, start, end) is None:
        # the account names the organisation in full ("Zorbq-Network") and the text writes its
        # first word alone ("Zorbq"), or the full name with a legal form after it ("Zorbq Network
        # Inc"): the account's name is the organisation's, one name for all its reports. An acronym
        # the text spells out ("Zorbq Digital Response (ZDR)" behind "ZDR-Labs") is the text's own
        # full name: it wins below, as for an account of the acronym alone
        return form + rest, spans, kind
    longer = Counter()
    for s, e in spans:
        match = re.match(r" (" + "|".join(ORG_WORDS) + r")\b", text[e:e + 20])
        if match and _written(text, s, e) == form:
            longer[form + match.group(0)] += 1
    if longer:
        form = longer.most_common(1)[0][0]
    expanded = expansion(text, form, start, end)
    if expanded is not None:
        return expanded[0], [expanded[1]], kind
    return form, [(s, e) for s, e in spans
                  if _written(text, s, e) == form.split(" ")[0] or _written(text, s, s + len(form)) == form], kind


#: Top-level domains that are also the commonest script and template file extensions
#: ("zorbq-backup.sh", "Makefile.in"): such a name alone is no host of an account's domain.
_FILE_TLDS = frozenset({"sh", "in"})
#: The forges' pages domains and the forge each serves: "zorbq.github.io" is the pages of the
#: account github.com/zorbq, no site of its own.
_PAGES_FORGE = {"github.io": "github.com", "gitlab.io": "gitlab.com", "bitbucket.io": "bitbucket.org"}
_PAGES_SUFFIXES = tuple("." + pages for pages in _PAGES_FORGE)
#: Second-level labels under a country's domain ("acme.co.uk", "agency.gov.au").
SECOND_LEVEL = frozenset({"co", "com", "gov", "ac", "org", "net", "edu"})
#: Platforms whose sites are their users' ("zorbq.substack.com"): the label under the platform's
#: domain names a site's owner, the platform's own label names no one in particular.
TENANT_HOSTS = ("substack.com", "wordpress.com", "blogspot.com", "medium.com", "tumblr.com", "ghost.io",
                "hashnode.dev", "netlify.app", "vercel.app", "herokuapp.com", "pages.dev", "readthedocs.io",
                "notion.site", "wixsite.com", "webflow.io", "web.app", "firebaseapp.com", "appspot.com",
                # a government's shared domains: each department's blog, each service ("notify")
                "blog.gov.uk", "service.gov.uk")
#: Platforms whose users' pages are paths: the first segment names the owner ("medium.com/@zorbq").
PATH_TENANT_HOSTS = frozenset({"medium.com", "dev.to", "substack.com", "hashnode.com"})
#: First path segments of those platforms that name no user ("medium.com/p/<id>" is a post by its id).
_NOT_TENANTS = frozenset({"p", "m", "t", "s", "tag", "tags", "topic", "topics", "search", "home", "about",
                          "inbox", "notes", "explore"})
#: A forge's own pages of many owners' content ("github.com/advisories/GHSA-..."): no account.
_FORGE_PAGES = frozenset({"advisories", "topics", "marketplace", "sponsors", "features", "explore", "search",
                          "collections", "trending", "settings", "notifications"})
#: Hosts of documents anyone shares: their address says nothing of whose the document is.
SHARED_HOSTS = frozenset({"docs.google.com", "drive.google.com", "dropbox.com", "dl.dropboxusercontent.com",
                          "onedrive.live.com", "web.archive.org", "archive.org", "archive.ph", "pastebin.com"})


def address_key(location: str | None) -> str | None:
    """Whose address ``location`` is, as a key two addresses of one owner share: a forge's account
    (``github.com/zorbq``, its pages ``zorbq.github.io`` too); a user's site or pages on a platform of
    many owners (``substack.com/zorbq`` of ``zorbq.substack.com``, ``medium.com/zorbq`` of
    ``medium.com/@zorbq``); else the host's domain label (``host:zorbq`` of ``status.zorbq.io``).
    None for a path, an address that does not parse, and one that names no owner (a platform's own
    pages, a post by its id, a shared document's host)."""
    parts = url_parts(location or "")
    if parts is None:
        return None
    host = (parts.hostname or "").lower().rstrip(".")
    host = host[4:] if host.startswith("www.") else host
    segments = [p for p in parts.path.split("/") if p]
    if on_forge(host):
        if segments and segments[0].lower() == "orgs":
            segments = segments[1:]  # github.com/orgs/zorbq/discussions: the account zorbq's
        if not segments or segments[0].lower() in _FORGE_PAGES:
            return None
        return f"{host}/{segments[0].lower()}"
    for pages, forge in _PAGES_FORGE.items():
        if host.endswith("." + pages):
            return f"{forge}/{host[:-len(pages) - 1].rsplit('.', 1)[-1]}"
        if host == pages:
            return None
    if host in SHARED_HOSTS:
        return None
    if host in PATH_TENANT_HOSTS:
        user = segments[0].lower().lstrip("@") if segments else ""
        return f"{host}/{user}" if user and segments[0].lower() not in _NOT_TENANTS else None
    for platform in TENANT_HOSTS:
        if host == platform:
            return None
        if host.endswith("." + platform):
            return f"{platform}/{host[:-len(platform) - 1].rsplit('.', 1)[-1]}"
    label = domain_label(host)
    return f"host:{label}" if label else None


def domain_label(host: str) -> str | None:
    """The label of a host that names its domain's owner, in lower case: "acme-corp" of
    "status.acme-corp.co.uk"; None for a name of one label."""
    parts = [p for p in host.lower().split(".") if p]
    if len(parts) < 2:
        return None
    return parts[-3] if parts[-2] in SECOND_LEVEL and len(parts) >= 3 else parts[-2]


def _site_of(repository: str) -> str | None:
    """The site a repository named like a host holds ("zorbq.org" of "zorbq.org-deploy"), in lower
    case; None for an account's pages on its forge ("alice.github.io"), and for a repository whose
    other words are not ones that say what it holds (:data:`GENERIC_PARTS`): "zorbq.org-archive"
    keeps a copy of the site, perhaps someone else's."""
    parts = [p.lower() for p in re.split(r"[-_]", repository) if p]
    sites = [p for p in parts if "." in p and p.rsplit(".", 1)[1] in _TLDS]
    if len(sites) != 1 or any(p not in GENERIC_PARTS for p in parts if p != sites[0]):
        return None
    site = sites[0]
    return None if site in _PAGES_FORGE or site.endswith(_PAGES_SUFFIXES) else site


def _hosts(text: str, start: int, end: int | None) -> list[tuple[str, tuple[int, int], bool]]:
    """Every host name ``text`` writes between ``start`` and ``end`` (one whose last label is a
    top-level domain: :func:`~pmparse.nlp.extractors.hosts.find_hosts`), in lower case, with its
    span and whether it is an address's host (after "://": a link's target, an address the text
    cites)."""
    found = []
    for match in find_hosts(text, start, len(text) if end is None else end):
        host = match.group(0).lower()
        if host.rsplit(".", 1)[1] in _TLDS:
            found.append((host, match.span(), text[max(0, match.start() - 3):match.start()] == "://"))
    return found


def _account_hosts(text: str, location: str, start: int, end: int | None,
                   hosts: list | None) -> tuple[str, list[tuple[int, int]], str] | None:
    """The account's name when the text never writes it but writes hosts on its domain, twice or
    more ("ci.zorbq.io", "updates.zorbq.io" behind the account "zorbq-infra"): the services the
    text is about are the account owner's. The name is the account's one word (:func:`slug_name`).
    Only the hosts the text writes as names count: a link's target is an address it cites (a
    catalogue entry's source on its curator's site), and a Markdown link writing its host as its
    text ("[ci.zorbq.io](https://ci.zorbq.io/)") writes it once. A script or template file name
    ("zorbq-backup.sh") is no host of it (a host on a repository's own site is: :func:`_site_of`)."""
    name = slug_name(location)
    if name is None or not any(kind == "account" for kind, _ in address_names(location)):
        return None
    key = _key(name)
    hosts = _hosts(text, start, end) if hosts is None else hosts
    spans = []
    for host, span, linked in hosts:
        if linked or host.rsplit(".", 1)[1] in _FILE_TLDS:
            continue
        label = domain_label(host) or ""
        if _key(label) == key or _key(label.split("-")[0]) == key:
            spans.append(span)
    return (name, spans, "host") if len(spans) >= 2 else None


def _organisation_rest(account: str, key: str) -> str | None:
    """The words an account adds to the name ``key`` the text writes, when the account is that name
    and organisation words (:data:`ORG_WORDS`) and nothing else: " Network" for "Zorbq-Network"
    written "Zorbq", "" when the text writes the whole name; None for an account of other words."""
    kept = [p for p in re.split(r"[-_]", account) if p and p.casefold() not in GENERIC_PARTS]
    if len(kept) < 2 or _key(kept[0]) != key and _key("".join(kept)) != key:
        return None
    words = {w.casefold(): w for w in ORG_WORDS}
    if any(p.casefold() not in words for p in kept[1:]):
        return None
    return "" if _key("".join(kept)) == key else "".join(" " + words[p.casefold()] for p in kept[1:])


def _written(text: str, start: int, end: int) -> str:
    """The name at ``text[start:end]`` as one line (a wrapped name's line end is a space)."""
    return text[start:end].replace("\n", " ")


def slug_name(location: str) -> str | None:
    """A name formatted from a forge account alone, when one word is left once its generic parts
    are dropped ("comdex-official" and "comdex" give "Comdex": a word in lower case is capitalised).
    None for a slug of several words the text never writes ("berkeley-dsep-infra"): it is no
    display name, and a wrong publisher is worse than none."""
    kept = _account_word(location)
    if kept is None or run_together(kept):
        return None
    return kept[0].upper() + kept[1:] if kept.islower() else kept


#: Most letters of one word in lower case: a longer slug runs several words together.
_LONGEST_WORD = 14


def _account_word(location: str) -> str | None:
    """The one part left of the forge account of ``location`` once its generic parts are dropped,
    or None (no forge account, or several parts left)."""
    names = address_names(location)
    if not names or names[0][0] != "account":
        return None
    parts = [p for p in re.split(r"[-_.]", names[0][1]) if p]
    kept = [p for p in parts if p.casefold() not in GENERIC_PARTS]
    if len(kept) != 1 or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9]{1,40}", kept[0]):
        return None
    return kept[0]


def run_together(slug: str) -> bool:
    """Whether a slug in lower case runs several words together ("zorbqdigitalresponse"): longer
    than one word is. No capitalisation of it is the name its owner writes ("Zorbq Digital
    Response"), so it names no publisher by itself."""
    return slug.islower() and len(slug) > _LONGEST_WORD


#: Acronyms of what an incident report is about, never of who publishes it: a long slug's
#: letters hold most of them in order ("CPU" in "cloudnativecomputingfoundation", "SLA" in
#: "stellardevelopmentfoundation"), and a report writes them again and again.
TECHNICAL_ACRONYMS = frozenset(
    "ACL ALB API ASAP BGP CDN CIDR CLI CORS CPU CSS CSV CVE DDOS DHCP DNS DOS EBS ELB ETA FAQ FYI GPU GRPC "
    "HDD HTML HTTP HTTPS IOPS IPV JSON JVM JWT KMS LDAP LTS MFA MTTD MTTR NAT NFS NIC NTP OOM OTP PDF PII "
    "RAID RAM RCA RDS REST RPC RPO RTO SAML SDK SFTP SLA SLI SLO SMTP SQL SRE SSD SSH SSL SSO SYN TBD TCP "
    "TLS TODO TTL UDP UUID URL USB UTC VLAN VPC VPN WAF XML YAML ZIP".split())


def slug_acronym(text: str, location: str, start: int = 0, end: int | None = None) -> tuple[str, list[tuple[int, int]]] | None:
    """The acronym a text writes for a forge account that runs words together, with its spans:
    capitals whose letters come in order in the slug, the first its first letter
    ("ZDR" for "zorbqdigitalresponse"), written twice or more as a word of its own, and not one of
    :data:`TECHNICAL_ACRONYMS`. None for any other account, or when the text writes no such acronym."""
    slug = _account_word(location)
    if slug is None or not run_together(slug):
        return None
    found: dict[str, list[tuple[int, int]]] = {}
    for match in re.finditer(r"(?<![\w/.@-])[A-Z]{3,6}(?![\w/@-])", text[start:end] if end is not None else text[start:]):
        acronym = match.group(0)
        if acronym[0].lower() != slug[0] or acronym in TECHNICAL_ACRONYMS:
            continue
        at = 1
        for letter in acronym[1:].lower():
            at = slug.find(letter, at) + 1
            if at == 0:
                break
        else:
            found.setdefault(acronym, []).append((start + match.start(), start + match.end()))
    if not found:
        return None
    acronym = max(found, key=lambda a: (len(found[a]), len(a)))
    return (acronym, found[acronym]) if len(found[acronym]) >= 2 else None


def expansion(text: str, short: str, start: int = 0, end: int | None = None) -> tuple[str, tuple[int, int]] | None:
    """The name an acronym stands for where the text writes it out: capitalised words whose
    initials are the acronym ("Open Build Service" for "OBS"); None for any other form."""
    if not re.fullmatch(r"[A-Z]{2,5}", short):
        return None
    words = r"\s+".join(letter + r"[a-z]+" for letter in short)
    match = re.compile(r"(?<![\w-])" + words + r"(?![\w-])").search(text, start, len(text) if end is None else end)
    return (" ".join(match.group(0).split()), match.span()) if match else None


def name_from_host(host: str) -> str | None:
    """An organisation name guessed from a host: ``status.acme-corp.co.uk`` -> ``Acme-corp``."""
    return _label_name(domain_label(host) or "")


def _label_name(label: str) -> str | None:
    """A host's or a platform user's label written as a name ("acme-corp" -> "Acme-corp"); None
    for one that is no name (a digit first, other characters)."""
    return label[0].upper() + label[1:] if re.fullmatch(r"[a-z][a-z0-9-]{1,40}", label) else None


def host_guess(gaz: "Gazetteer", location: str, host: str):
    """What an address off the forges says of its owner: ``(guessed name, table entry)``.

    The table's organisation of the host's domain, else a name guessed from its label; a user's
    site on a platform of many owners ("zorbq.github.io", "zorbq.substack.com") guesses the user's
    name, never the platform's; a platform's own page or a shared document's host
    ("docs.google.com", "web.archive.org") names no owner
    (:func:`~pmparse.nlp.extractors.url_owner.address_key`). A user part of generic words only
    ("blog.medium.com", "medium.com/blog":
    :data:`~pmparse.nlp.extractors.url_owner.GENERIC_PARTS`) is the platform's own section,
    answered as any host; a user part in punycode ("xn--...") is no name to write. A forge's pages
    of an account the table knows ("aws.github.io") give its entry, as the account's address does.
    """
    key = address_key(location)
    if key is None:
        return None, None
    if not key.startswith("host:"):
        platform, user = key.rsplit("/", 1)
        # a forge's pages are its account's ("aws.github.io" is github.com/aws): the table's name, as there
        entry = gaz.by_alias.get(user) if on_forge(platform) else None
        if entry is not None:
            return None, entry
        if not all(part in GENERIC_PARTS for part in user.split("-")):
            ok = not user.startswith("xn--") and not run_together(user)
            return (_label_name(user) if ok else None), None
    entry = gaz.domain(host)
    return (None, entry) if entry is not None else (name_from_host(host), None)
