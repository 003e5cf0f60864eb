"""The organisation ranker's measurement and training run (``python -m
pmparse.training.organisation_main``): kept apart from :mod:`pmparse.training.organisation`, which
the evaluation imports, so that neither imports the other."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from pmparse.training.organisation import PENALTY, WRONG_COST, fit, held_out, rule_choice, same_name, training_rows


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a training script
    """``python -m pmparse.training.organisation_main [--write]``: measure the ranker with sources held
    out on every labelled line, against the rules' choice; with ``--write``, fit it on all of them
    and write ``models/organisation/`` (the facts component then ranks with it)."""
    import argparse

    from pmparse.evaluation.facts import labelled_files, measure

    parser = argparse.ArgumentParser(prog="python -m pmparse.training.organisation_main", description=main.__doc__)
    parser.add_argument("--write", action="store_true", help="also fit on every line and write the model")
    args = parser.parse_args(argv)
    files = labelled_files()
    # held_out: each document's candidates found with the table less its own source's publisher too
    _, pairs = measure(files, held_out=True)
    golds = [gold for gold, _ in pairs]
    train = training_rows(golds)
    figures = {}
    # "table": the packaged organisation table (it lists the corpus publishers); "own_dropped": the
    # table less the scored source's own publisher, the ranker trained on the other sources' rows
    # found the same way
    views = (("_candidates", "with_address", None), ("_candidates_text", "text_alone", None),
             ("_candidates_free", "with_address_own_dropped", ("_candidates_free", "_candidates_text_free")),
             ("_candidates_text_free", "text_alone_own_dropped", ("_candidates_free", "_candidates_text_free")))
    for key, name, keys in views:
        rows = [(g[key], g.get("organisation"), g["_group"]) for g in golds]
        rows_train = train if keys is None else [(g[k], g.get("organisation"), g["_group"]) for g in golds
                                                 for k in keys if g.get(k)]
        picks = held_out(rows, rows_train)
        named = [(p, r[1]) for p, r in zip(picks, rows) if r[1]]
        figures[f"held_out_{name}"] = round(sum(same_name(p, g) for p, g in named) / len(named), 4)
        figures[f"held_out_{name}_wrong"] = sum(1 for p, g in named if p is not None and not same_name(p, g))
        rules = [(rule_choice(r[0]), r[1]) for r in rows if r[1]]
        figures[f"rules_{name}"] = round(sum(same_name(p, g) for p, g in rules) / len(rules), 4)
        figures[f"rules_{name}_wrong"] = sum(1 for p, g in rules if p is not None and not same_name(p, g))
    print(f"documents {len(pairs)}; sources held out: {json.dumps(figures, indent=1)}")
    if not args.write:
        return
    ranker = fit(train)
    folder = Path(__file__).resolve().parents[1] / "models" / "organisation"
    ranker.save(folder, {"trained": _dt.date.today().isoformat(), "documents": len(pairs),
                         "files": [str(Path(f).relative_to(Path.cwd())) if Path(f).is_relative_to(Path.cwd())
                                   else str(f) for f in files],
                         "penalty": PENALTY, "wrong_cost": WRONG_COST, **figures})
    print(f"wrote {folder} (threshold {ranker.threshold})")


if __name__ == "__main__":  # pragma: no cover
    main()
