"""A file of many incidents, one entry each under a dated heading, and one more entry to add at its
top (texts written for these tests): shared by the tests of splitting entries and of converting,
keeping and publishing them."""

from __future__ import annotations

ENTRY = """### Incident on {day} - {what}

- **Impact**: {what} for about {minutes} minutes.
- **Root cause**: a {cause} was changed without a review.
- **Resolution**: the change was rolled back by the on-call engineer.
"""

LOG = "---\ntitle: Incident log\n---\n# Incident log\n\n## 2023\n\n" + "\n".join(
    ENTRY.format(day=day, what=what, minutes=m, cause=c) for day, what, m, c in [
        ("2023-11-02 10:15", "Builds queued", 40, "runner image"),
        ("2023-06-14", "Dashboards blank", 25, "proxy setting"),
        ("2023-02-01 08:00", "Logins refused", 55, "session key"),
    ]) + "\n## About this log\n\nOne entry per incident, newest first.\n"

NEW = ENTRY.format(day="2024-01-09 12:00", what="Mail delayed", minutes=30, cause="relay rule")
