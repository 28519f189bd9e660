"""The one base of every typed cuzk error.

Every error that names a bad input, a wrong usage or a resource the job lacks (a malformed file,
the wrong shape, too little memory, no GPU) derives from :class:`CuzkError`, so a step runner
catches one class and prints the message alone (it names the file and the fault). Each subclass
also keeps the builtin it always was (``ValueError``, ``RuntimeError``) so callers that catch
those keep working. Any layer may import this module; it imports nothing of cuzk.
"""


class CuzkError(Exception):
    """Base of cuzk's typed errors: bad inputs, wrong usage, missing resources."""
