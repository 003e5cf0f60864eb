"""Cards: the schema of a card and how one is built from an analysed Doc."""
