"""The exception an adapter raises when its case cannot run here, and one-line messages."""
import os
import traceback


class Unavailable(Exception):
    """The case cannot run here: stack missing, no GPU, variant not supported."""


def one_line(text, limit=900):
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def error_message(exc):
    """The exception's text on one line, plus where it was raised (the last traceback line)."""
    first = str(exc).strip().splitlines()
    head = type(exc).__name__ + (": " + first[0] if first else "")
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        f = frames[-1]
        where = " [at %s:%d in %s]" % (os.path.basename(f.filename), f.lineno, f.name)
    return one_line(head, 700) + where
