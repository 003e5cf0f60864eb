"""Reading inputs: bytes and text from files, standard input and front matter, HTML to text."""
