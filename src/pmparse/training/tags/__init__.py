"""Training the tag model: root-cause and contributing-factor categories, and components.

How the modules feed each other, in the order ``pmparse train-categories`` runs them:

- :mod:`.inputs`: the settings (:class:`~.inputs.TagSettings`), the pipeline without its tagger,
  and the gold documents analysed into the units the tagger reads.
- :mod:`.labels`: the team's category and component labels of corpus documents, and the icco and
  dfds summaries, checked and turned into rows.
- :mod:`.field_cards` and :mod:`.written_cards`: rows from the card facts of the all-field
  annotations and of the postmortems the team wrote.
- :mod:`.features`: the hashed n-grams and cue counts the classifiers read (the hashing made
  once for every fit of a cross-validation).
- :mod:`.folds`: the calibration folds and the cross-validations' folds (documents held out,
  sources held out).
- :mod:`.fit`: one calibrated classifier per category, the component ranker, and the
  cross-validations.
- :mod:`.agreement`: agreement between two passes of the labels.
- :mod:`.card`: the model card and the figures checked against ``eval/categories_floors.json``.
- :mod:`.train`: :func:`~.train.train` ties them together and writes the model folder.
"""
