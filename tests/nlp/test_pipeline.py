"""The pipeline cache: several configurations served in turn by one long-lived process."""

from __future__ import annotations

from pathlib import Path

import yaml

from pmparse.nlp.pipeline import PipelineConfig, get, pipeline_config

REPORT = ("# Queue backlog\n\n## Lessons learned\n\nThe resque workers stopped taking jobs after an upgrade changed "
          "their queue names.\n\n## Action items\n\n- Pin the queue names in the worker config.\n")


def _rules(tmp_path: Path) -> PipelineConfig:
    """A config whose heading table files 'lessons learned' under root cause and whose taxonomy adds a component."""
    from tests.helpers import other_headings

    taxonomy = tmp_path / "taxonomy.yaml"
    taxonomy.write_text(yaml.safe_dump({"version": 1, "mode": "extend", "groups": {"components": [
        {"id": "job_runner", "name": "Job runner", "description": "Background job processors.",
         "synonyms": ["resque"]}]}}), encoding="utf-8")
    return PipelineConfig(headings_path=other_headings(tmp_path), taxonomy_path=str(taxonomy),
                          model_dir=pipeline_config().model_dir)


def test_two_configs_served_in_turn_each_read_their_own_rules(tmp_path):
    from pmparse.batch.suggest import suggest

    report = tmp_path / "report.md"
    report.write_text(REPORT, encoding="utf-8")
    plain, other = pipeline_config(), _rules(tmp_path)
    assert get(plain) is not get(other)
    for _ in range(2):  # A, B, A, B: neither is served the other's heading table or taxonomy
        card, _ = suggest(str(report), plain)
        assert "job_runner" not in card.components
        assert card.lessons and not any("resque" in item.text for item in card.root_cause)
        card, _ = suggest(str(report), other)
        assert "job_runner" in card.components
        assert any("resque" in item.text for item in card.root_cause) and not card.lessons
