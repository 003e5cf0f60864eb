from __future__ import annotations

from pmparse.card.schema import TEXT_FIELDS
from pmparse.nlp.components.fields import label_fields
from pmparse.nlp.components.item_content import link_only, placeholder_only, short_action, work_on_reference


def probs(**given: float) -> dict[str, float]:
    out = {name: 0.0 for name in TEXT_FIELDS}
    out["none"] = 0.0
    out.update(given)
    return out


def labelled(text: str, field: str) -> list[str]:
    """The items ``label_fields`` gives when the model files every unit of ``text`` in ``field``."""
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "w.md"))
    doc.spans["units"].attrs["probs"] = [probs(**{field: 0.9}) for _ in doc.spans["units"]]
    label_fields(doc, heading_weight=0.5, threshold=0.2)
    return [s.text for s in doc.spans["fields"]]


LINKS = """# Billing queue stall

## Notes

- [here](https://tracker.example.org/zq/41)
- <https://tracker.example.org/zq/42>
- More details in https://tracker.example.org/zq/43.
- See PR #318
- [Retry invoice fetches](https://tracker.example.org/zq/44)
- The invoice worker ran out of file handles, see https://tracker.example.org/zq/45
- [link](https://chat.example.org/m/9)
"""


def test_a_link_alone_is_no_item_but_a_tickets_title_is_an_action_item():
    actions = labelled(LINKS, "action_items")
    assert actions == ["[Retry invoice fetches](https://tracker.example.org/zq/44)",
                       "The invoice worker ran out of file handles, see https://tracker.example.org/zq/45"]
    # a symptom or a root cause is what happened: a short label only names the page linked
    causes = labelled(LINKS, "root_cause")
    assert causes == ["The invoice worker ran out of file handles, see https://tracker.example.org/zq/45"]


def test_link_only_reads_the_label_by_field():
    text = "[Zorbq 7](https://zorbq.example.org/7)"
    assert link_only(text, 0, len(text), "symptoms")
    assert link_only(text, 0, len(text), "action_items")  # one word names no work
    text = "[The nightly export filled the shared volume](https://zorbq.example.org/8)"
    assert not link_only(text, 0, len(text), "root_cause")  # a label that is a statement
    text = "Release: [v2.4.1](https://zorbq.example.org/r/2.4.1)"
    assert link_only(text, 0, len(text), "remediation")
    text = "Rolled back to the previous image"  # no link at all: not this rule's to judge
    assert not link_only(text, 0, len(text), "remediation")
    text = "PR #77 reverted the cache change"
    assert not link_only(text, 0, len(text), "remediation")


PLACEHOLDERS = """# Billing queue stall

## Follow-up

- {{ owner }}
- {{date}}
- <fill in>
- {{ summary }} [link to tracker issue]
- To do #1 (TODO: open a task) To do #2 (TODO: open a task)
- (TODO: open a task)
- {{ Move the invoice worker to its own node pool }} [link to tracker issue]
- Wait {{count}} more confirmations before paying out
"""


def test_a_templates_unfilled_placeholders_are_never_an_item():
    for field in ("action_items", "symptoms", "lessons"):
        assert labelled(PLACEHOLDERS, field) == [
            "{{ Move the invoice worker to its own node pool }} [link to tracker issue]",
            "Wait {{count}} more confirmations before paying out"], field


def test_placeholder_only_on_single_items():
    for item in ("{{ owner }}", "{% include footer.html %}", "<owner name>", "[<name> to fill in the cause]",
                 "TBD", "(TBD)"):
        assert placeholder_only(item, 0, len(item)), item
    for item in ("Add an alert on the queue's depth", "TODO: move the queue to its own disk",
                 "nova show <hostid> listed every failed instance"):
        assert not placeholder_only(item, 0, len(item)), item


def test_a_detection_items_link_names_the_alert_that_noticed():
    # the alert or the dashboard linked is what noticed: its name is the detection item
    for item in ("[Queue-Depth alert](https://pager.example.org/i/7)",
                 "09:14 [Queue-Depth alert](https://pager.example.org/i/7)"):
        assert not link_only(item, 0, len(item), "detection"), item
    item = "[Zorbq 7](https://grafana.example.org/d/7)"
    assert link_only(item, 0, len(item), "detection")


def test_a_reference_link_or_an_html_anchor_alone_is_a_link_alone():
    for item in ("[here][1]", "See [the thread][chat-9].", '<a href="https://chat.example.org/m/9">here</a>',
                 "More in <A HREF='https://chat.example.org/m/9'>this thread</a>."):
        assert link_only(item, 0, len(item), "symptoms"), item
    for item in ("[Retry invoice fetches][tk-44]", '<a href="https://tracker.example.org/zq/44">Retry invoice fetches</a>'):
        assert not link_only(item, 0, len(item), "action_items"), item
    item = "The invoice worker ran out of file handles ([details][3])"
    assert not link_only(item, 0, len(item), "root_cause")


def test_a_placeholder_wrapped_over_two_lines_or_in_erb_is_still_a_placeholder():
    # plain-text pages break lines anywhere: "(TODO: open a\ntask)" is the same note
    for item in ("(TODO: open a\ntask)", "(TBD\n)", "[link to the\ntracker issue]", "<%= owner %>", "<%= @report.date %>",
                 "{{ owner\n}}"):
        assert placeholder_only(item, 0, len(item)), item
    item = "Restart the poller on <%= host %> before noon"
    assert not placeholder_only(item, 0, len(item))


def _read_hostile_braces() -> None:
    item = "{{" + " " * 20_000
    placeholder_only(item, 0, len(item))


def _finishes_within(target, seconds: float = 10) -> bool:
    """Whether ``target`` ends well in a forked process within ``seconds`` (killed if not): a
    budget, not a timing; linear work takes milliseconds, the nested runs it guards took minutes."""
    import multiprocessing

    worker = multiprocessing.get_context("fork").Process(target=target)
    worker.start()
    worker.join(seconds)
    alive = worker.is_alive()
    if alive:
        worker.kill()
        worker.join()
    return not alive and worker.exitcode == 0


def test_braces_before_a_long_run_of_spaces_cost_linear_time():
    assert _finishes_within(_read_hostile_braces)


def test_an_action_on_a_pointing_word_is_the_items_own_words():
    # "Release", "patch", "document" point at a link in "Release: [v2.4.1](...)" or "Related
    # patch: ...", but opening an item with their object they are the work done or promised
    for item in ("Release the patch (#45)", "Document the release ([#45](https://tracker.example.org/zq/45))",
                 "- [ ] Commit the patch, see #45", "Please link the ticket from the report: #45",
                 "Post the postmortem https://wiki.example.org/pm/7"):
        for field in ("action_items", "remediation", "symptoms"):
            assert not link_only(item, 0, len(item), field), (item, field)
    # a ticket's title that is such an action names the promised work
    item = "[Release the patch](https://tracker.example.org/zq/45)"
    assert not link_only(item, 0, len(item), "action_items")
    for item in ("See #45", "Tracked in #45", "Details: <https://tracker.example.org/zq/45>", "More here #45",
                 "Release: [v2.4.1](https://zorbq.example.org/r/2.4.1)", "Release branch: #45", "Patch #45",
                 "Pull request #45", "Post mortem: https://wiki.example.org/pm/7", "Follow up in #45",
                 "Read the full report at https://wiki.example.org/pm/7", "Patch for #45", "Link to the ticket: #45",
                 "Commit the details: #45", "[Release the patch](https://tracker.example.org/zq/45)"):
        assert link_only(item, 0, len(item), "remediation"), item


ACTIONS = """# Billing queue stall

## Follow-up

- Release the patch (#45)
- Tracked in #46
- Document the release ([#47](https://tracker.example.org/zq/47))
- Details: <https://tracker.example.org/zq/48>
"""


def test_an_action_item_on_a_pointing_word_is_kept_and_a_pointer_is_not():
    assert labelled(ACTIONS, "action_items") == ["Release the patch (#45)",
                                                  "Document the release ([#47](https://tracker.example.org/zq/47))"]


def test_a_heading_word_before_a_link_says_nothing():
    # the field's own name or a heading's words label the link: "Root cause: [here](...)" says no cause
    for item in ("Root cause: [here](https://wiki.example.org/pm/7)", "Root cause: https://wiki.example.org/pm/7",
                 "**Action items**: <https://tracker.example.org/zq/45>",
                 "root_cause: [details](https://wiki.example.org/pm/7)",
                 "Lessons learned: see #45", "| Root cause | [here](https://wiki.example.org/pm/7) |",
                 "Root cause [here](https://wiki.example.org/pm/7)", "Timeline: #45",
                 "Root cause - [here](https://wiki.example.org/pm/7)",
                 "Trigger | [there](https://wiki.example.org/pm/7)"):
        for field in ("root_cause", "action_items", "lessons"):
            assert link_only(item, 0, len(item), field), (item, field)
    for item in ("Root cause: the nightly export filled the volume ([details](https://wiki.example.org/pm/7))",
                 "Root cause of the stall in #45",
                 "Action items: [Retry invoice fetches](https://tracker.example.org/zq/44)"):
        assert not link_only(item, 0, len(item), "action_items"), item
    item = "Detection: [Queue-Depth alert](https://pager.example.org/i/7)"
    assert not link_only(item, 0, len(item), "detection")


HEADED = """# Billing queue stall

## Notes

1. Root cause: <https://wiki.example.org/pm/7>
2. Root cause - [here](https://wiki.example.org/pm/9)
3. The invoice worker ran out of file handles ([details](https://wiki.example.org/pm/8))

| Field | Where |
| --- | --- |
| Root cause | [here](https://wiki.example.org/pm/10) |
"""


def test_a_root_cause_that_is_its_fields_name_and_a_link_is_no_item():
    assert labelled(HEADED, "root_cause") == [
        "The invoice worker ran out of file handles ([details](https://wiki.example.org/pm/8))"]


def test_dollar_brace_and_bracketed_prompts_are_placeholders():
    for item in ("${owner}", "${ date range of the outage }", "${timestamp} ${event}", "[Describe the impact]",
                 "<insert date>", "[Brief summary of the fix]", "[Explain why it happened]", "[Date]",
                 "[List the follow-up tasks]", "<Link to the Call or recording>"):
        assert placeholder_only(item, 0, len(item)), item
    for item in ("Restart ${SERVICE} on every node",
                 "[Add retries to the fetcher](https://tracker.example.org/zq/44)",
                 "[Describe the impact][3]", "The date [UTC] is wrong", "Describe the impact in the status post",
                 "Our [internal] dashboards lagged"):
        assert not placeholder_only(item, 0, len(item)), item


def _read_hostile_items() -> None:
    for item in ("${" + " " * 20_000, "[Describe" + " a" * 10_000, "[" + "a " * 10_000 + "]",
                 "<insert" + " a" * 10_000, "${" + "x" * 20_000 + "$" * 100, "Release the" + " " * 20_000,
                 "Root cause" + " " * 20_000 + ": #4", "|" * 20_000 + "#4", "[ ]" * 7_000 + " #4",
                 "`${a}" * 5_000, "[[Owner:" * 3_000, "[Short" + " " * 20_000 + "term]", "Diff a ab " * 3_000,
                 "[P1] " * 10_000 + "x", "Fix:" + " " * 20_000 + "#4", "[Optional," * 5_000 + "]"):
        placeholder_only(item, 0, len(item))
        link_only(item, 0, len(item), "action_items")
        short_action(item, 0, len(item), "action_items")


def test_hostile_pointers_labels_and_prompts_cost_linear_time():
    assert _finishes_within(_read_hostile_items)


def test_a_link_being_tracked_somewhere_is_a_pointer():
    # "Being tracked in <tracker> at <link>" says where the work is followed, as "Tracked in #45"
    for item in ("Being tracked in #45", "Being tracked in the tracker at https://tracker.example.org/zq/45",
                 "Is being tracked at https://tracker.example.org/zq/45"):
        assert link_only(item, 0, len(item), "action_items"), item
    item = "Being rolled back in #45"
    assert not link_only(item, 0, len(item), "action_items")


def test_a_shell_variable_in_a_code_span_is_a_command_not_a_prompt():
    # "${owner}" as an item is a template's prompt; inside a code span it is the shell's variable
    # of a command a person ran, and the command is the item however few words it has
    for item in ("`rm -f ${LOCKFILE}`", "`kill ${PID}`", "Ran `drain ${NODE}`"):
        assert not placeholder_only(item, 0, len(item)), item
    for item in ("${owner}", "${owner} `${team}`"):
        assert placeholder_only(item, 0, len(item)), item


SHELL_STEPS = """# Cache node stall

## Resolution

- `rm -f ${LOCKFILE}`
- ${owner}
"""


def test_a_one_word_shell_step_with_a_variable_stays_an_item():
    assert labelled(SHELL_STEPS, "remediation") == ["`rm -f ${LOCKFILE}`"]


def test_a_filled_label_a_tag_or_a_wiki_link_in_square_brackets_is_no_prompt():
    # "[Owner]" and "[Short description]" are prompts; "[Owner: kim]" is the field filled in,
    # "[Short term]" an action item's horizon and "[[How to fail over]]" a wiki page's link
    for item in ("[Owner: kim] Reindex", "[Date: 2031-04-20] Reindex", "[Short term] Rollback",
                 "[Short-term] Rollback", "Update [[How to fail over]]", "[[List of cache hosts]] updated"):
        assert not placeholder_only(item, 0, len(item)), item
    for item in ("[Owner]", "[Owner: ] Reindex", "[Short description of the fix]", "[Brief summary]", "[Date]"):
        assert placeholder_only(item, 0, len(item)), item


def test_a_long_run_of_actions_on_pointing_words_is_counted_without_recursion():
    # each "Diff a ab" is an action (a verb, an article, an object); counting them one call deeper
    # each ran out of Python's stack on a long item
    item = "Diff a ab " * 3000 + "(#45)"
    assert not link_only(item, 0, len(item), "action_items")


def test_a_link_whose_label_a_heading_introduces_is_the_fields_words():
    # "Root cause: [here](...)" says no cause, but after "Root cause:" a label that names one is
    # the cause itself, with its ticket linked: two words of its own are enough, as in action items
    for item, field in (("Root cause: [expired TLS certificate](https://tracker.example.org/zq/51)", "root_cause"),
                        ("Trigger - [config push](https://tracker.example.org/zq/52)", "trigger"),
                        ("| Impact | [checkout errors](https://status.example.org/i/53) |", "symptoms")):
        assert not link_only(item, 0, len(item), field), item
    for item in ("Root cause: [here](https://wiki.example.org/pm/7)", "Root cause: [PR 4521](https://x.example.org/1)",
                 "Root cause: [details](https://wiki.example.org/pm/7)", "Cause: [Data 100](https://x.example.org/2)"):
        assert link_only(item, 0, len(item), "root_cause"), item


KEPT_ACTIONS = """# Billing queue stall

## Follow-up

1. [Optional] Cleanup
2. Fix: PR #4521
3. [Describe the impact]
4. See PR #4522
5. [Optional]
"""


def test_a_tagged_one_word_action_and_a_fix_before_its_reference_are_action_items():
    # (a numbered list: at a bullet's start the sectionizer reads "Fix:" as an inline heading)
    # what a curator keeps: an item with an action ("Cleanup", tagged optional; "Fix", done in a
    # pull request) is the work promised; a bare prompt, a bare pointer or a bare tag is not
    assert labelled(KEPT_ACTIONS, "action_items") == ["[Optional] Cleanup", "Fix: PR #4521"]
    assert labelled(KEPT_ACTIONS, "remediation") == ["[Optional] Cleanup", "Fix: PR #4521"]


def test_a_tag_leaves_one_word_an_action_where_a_prompt_leaves_it_a_label():
    for item in ("[Optional] Cleanup", "[ optional ] Reindex"):
        assert not placeholder_only(item, 0, len(item)), item
    for item in ("[Optional]", "[Optional] TBD", "[Optional] [Describe the impact]", "[Owner: ] Reindex"):
        assert placeholder_only(item, 0, len(item)), item


def test_fix_labels_the_work_before_a_reference_only_in_fields_of_work():
    for item in ("Fix: PR #4521", "Fix - #4521", "**Fix**: [PR 4521](https://tracker.example.org/pr/4521)"):
        for field in ("action_items", "remediation"):
            assert not link_only(item, 0, len(item), field), (item, field)
        # a cause or a symptom is no work: the heading's word only labels the link there
        assert link_only(item, 0, len(item), "root_cause"), item
    for item in ("Remediation: PR #4521", "Follow up in #4521", "Follow-up: PR #4521", "Tracked in #4521"):
        assert link_only(item, 0, len(item), "action_items"), item


def test_a_verb_of_work_before_a_reference_is_the_items_action():
    # "Fixes" says what the pull request does, as "Fix" does; "Revert" and "Fixed in" were never
    # heading words; "Follow-up:" and "Tracked in" only say where the work is followed
    for item in ("Fixes: PR #4521", "Fixes: #4521", "**Fixes** - [PR 4521](https://tracker.example.org/pr/4521)",
                 "Revert: PR #4521", "Fixed in PR #4521", "Hotfix: !17"):
        for field in ("action_items", "remediation"):
            assert not link_only(item, 0, len(item), field), (item, field)
    assert link_only("Fixes: PR #4521", 0, 15, "root_cause")


DASHED_ACTIONS = """# Billing queue stall

## Follow-up

- Fix: PR #4521
- Fixes: PR #4522
- [Optional, low priority] Cleanup
- Reindex the invoice queue nightly
- [Describe the impact]
- See PR #4523
- Root cause: [here](https://wiki.example.org/pm/7)
- **Fix**: PR #4524
- Revert: PR #4525
"""


def test_a_bullet_of_work_on_a_reference_or_after_a_tag_is_an_action_item():
    # a dash bullet "- Fix: PR #4521" was read as the heading "Fix" over a bare reference, and
    # "Fixes:" and a tag of several words as a label and a prompt: each left nothing to keep
    kept = ["Fix: PR #4521", "Fixes: PR #4522", "[Optional, low priority] Cleanup",
            "Reindex the invoice queue nightly", "**Fix**: PR #4524", "Revert: PR #4525"]
    assert labelled(DASHED_ACTIONS, "action_items") == kept
    assert labelled(DASHED_ACTIONS, "remediation") == kept


def test_a_tag_of_several_words_leaves_one_word_an_action():
    for item in ("[Optional, low priority] Cleanup", "[optional; nice to have] Reindex", "[Optional - P2] Cleanup",
                 "[Optional / short term] Rollback"):
        assert not placeholder_only(item, 0, len(item)), item
    for item in ("[Optional, low priority]", "[Optional, describe the cleanup]", "[Optional, list the owners] Reindex"):
        assert placeholder_only(item, 0, len(item)), item


SHORT_ACTIONS = """# Billing queue stall

## Follow-up

- [P1] Cleanup
- (P2) Reindex
- Fixes #4521
- Revert #4522
- [Optional] Fix: PR #4523
- [P1]
- [P2] TBD
- Cleanup
- See #4524
- [Owner: alice] Cleanup
- Tracked in #4525
- Follow-up: PR #4526
"""


def test_a_one_word_action_tagged_or_done_in_a_reference_is_an_action_item():
    # fewer than two words made no unit: a priority tag or a verb of work before a reference
    # says the one word is work promised or done, as "[Optional]" does; a bare word, tag or
    # pointer ("Tracked in", "Follow-up:": where the work is followed, not what) still says nothing
    kept = ["[P1] Cleanup", "(P2) Reindex", "Fixes #4521", "Revert #4522", "[Optional] Fix: PR #4523"]
    assert labelled(SHORT_ACTIONS, "action_items") == kept + ["[Owner: alice] Cleanup"]
    assert labelled(SHORT_ACTIONS, "remediation") == kept + ["[Owner: alice] Cleanup"]
    # no cause or symptom: a heading's verb there only labels the link
    assert not set(kept) & set(labelled(SHORT_ACTIONS, "root_cause"))


def test_short_action_is_a_tagged_word_or_a_verb_on_a_reference_in_fields_of_work():
    for item in ("[P1] Cleanup", "[Priority: high] Reindex", "(P0) Rollback", "Fixes #4521", "- **Fixed**: !17",
                 "Reverted [PR 4521](https://tracker.example.org/pr/4521)", "Hotfix - #4521"):
        assert short_action(item, 0, len(item), "action_items"), item
        assert not short_action(item, 0, len(item), "root_cause"), item
    for item in ("[P1]", "Cleanup", "[P1] Clean up the queue", "Fixes", "Fix: restart the consumers",
                 "Fixture #4521", "Prefix #4521", "See #4521"):
        assert not short_action(item, 0, len(item), "action_items"), item


def test_work_on_reference_reads_the_verb_before_a_bare_link_only():
    # a link's short label is its name, as in a cause's field: the verb is the item's only words
    for line in ("- Fix: PR #4521", "* **Fixes**: [PR 4522](https://tracker.example.org/pr/4522)", "Reverted #4521",
                 "- Fix: [retry fetches](https://tracker.example.org/zq/1)"):
        assert work_on_reference(line), line
    for line in ("- Fix: restart the consumers", "- Fix: [Add retries to the invoice fetcher](https://tracker.example.org/zq/1)",
                 "- Remediation: PR #4521", "- Fix:"):
        assert not work_on_reference(line), line


LABELLED_LINKS = """# Billing queue stall

## Notes

Mitigation: [retry fetches](https://tracker.example.org/zq/61)

- Remediation: [drain the queue](https://tracker.example.org/zq/62)

Root cause: [expired certificate](https://tracker.example.org/zq/63)

Root cause: [here](https://wiki.example.org/pm/64)

- Cause: [PR 4521](https://tracker.example.org/pr/4521)
"""


def test_a_short_link_after_a_label_on_its_line_is_the_labels_item():
    # a label the sectionizer reads as a heading ("Mitigation:") is no word of the unit after it, so
    # the unit was the link alone and its short label a page's name: a curator keeps "retry
    # fetches", as "Root cause: [expired TLS certificate](...)" in one unit was kept; a pointer's
    # label ("[here]") or a reference's ("[PR 4521]") after a label still says nothing
    kept = ["[retry fetches](https://tracker.example.org/zq/61)", "[drain the queue](https://tracker.example.org/zq/62)",
            "[expired certificate](https://tracker.example.org/zq/63)"]
    for field in ("remediation", "root_cause", "symptoms"):
        assert labelled(LABELLED_LINKS, field) == kept, field
