"""`drama studio`: a local web page over a project folder and its take store, where a producer
listens to, compares, selects, revises and edits takes. A view after the commands: it reads and
writes only through the stage packages. The web stack is imported only when the studio runs."""
