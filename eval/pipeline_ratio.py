"""The benchmark's pipeline loop alone, timed in process time: the ratio of a blank spaCy tokenizer's
time to the pipeline's over the same documents, and where the pipeline's time goes.

    PYTHONPATH=TREE/src python eval/pipeline_ratio.py [--size full|small] [--files LIST]

``pmparse bench`` times the same loop in wall time (each document tokenized by a cold blank
tokenizer just before the pipeline reads it). Process time counts less of the other work on a
shared machine, so two source trees timed one after the other, alternating, compare better with
it; the ratio is the bench's words/s ratio (both read the same words). It takes well under a
minute, against several for the whole bench. ``--files LIST`` reads the paths in LIST (one per
line) instead of the bench's corpus files, so that an older tree, whose readers refuse formats
added since, and this one time the same documents.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("full", "small"), default="full")
    parser.add_argument("--files", help="a file listing the documents to read, one path per line")
    args = parser.parse_args()

    import spacy

    from pmparse.evaluation.bench import analyse_timed, bench_files
    from pmparse.ingest.read import ingest
    from pmparse.nlp.pipeline import build, pipeline_config, version_info

    if args.files:
        with open(args.files, encoding="utf-8") as listing:
            files = [line.strip() for line in listing if line.strip()]
    else:
        _, files = bench_files(args.size, None)
    sources = []
    for path in files:
        try:
            sources.append(ingest(str(path)))
        except Exception:  # a file the pipeline refuses is left out, as in the bench
            continue
    words = sum(len(source.text.split()) for source in sources)
    nlp = build(pipeline_config())
    info = version_info(nlp)
    blank = spacy.blank("en")
    blank.max_length = 10**9
    spent = {"tokenizer (make_doc)": 0.0, **{name: 0.0 for name in nlp.pipe_names}, "card": 0.0}
    tokenizer = 0.0
    for source in sources:
        mark = time.process_time()
        blank.make_doc(source.text)
        now = time.process_time()
        tokenizer += now - mark
        analyse_timed(nlp, source, info, spent, clock=time.process_time)
    pipeline = sum(spent.values())
    print(f"{len(sources)} documents, {words} words: pipeline {pipeline:.2f} s, blank tokenizer {tokenizer:.2f} s, "
          f"ratio {tokenizer / pipeline:.3f}")
    print(", ".join(f"{name} {seconds:.2f} s ({seconds / pipeline:.0%})" for name, seconds in spent.items()))


if __name__ == "__main__":
    main()
