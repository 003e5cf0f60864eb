"""The library as a static web site (``pmparse site``) and as flat rows for other tools (``pmparse export``).

:mod:`pmparse.site.build` writes the site, :mod:`pmparse.site.pages` renders its pages,
:mod:`pmparse.site.highlight` marks each item's evidence in the source text, :mod:`pmparse.site.view`
turns a card into what its rows and pages show, :mod:`pmparse.site.export` writes JSON lines or CSV.
"""
