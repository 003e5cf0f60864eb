"""Training the field model and the tag model from the corpus and its labels."""
