"""Atoll's exceptions (docs/python.md, "Errors").

Every error of the library is an ``atoll.Error``. What the caller got wrong
(a graph that does not read, an unknown operator, a tensor name, an array of
the wrong dtype) is an ``atoll.UserError``; its message names the place and
its attributes carry the place's parts, each ``None`` when not known.
"""


class Error(Exception):
    """Base class of every exception Atoll raises."""


class UserError(Error):
    """An error in what the caller gave Atoll: a graph, an option, a tensor
    name, a buffer.

    ``str(e)`` is the whole message, e.g. ``graph 'g', node 'n1', at
    /nodes/1/op: unknown operator 'Reluu'``. The attributes:

    - ``reason``: the message without the place;
    - ``pointer``: JSON pointer into the graph object or batch (``/nodes/1/op``);
    - ``graph``, ``node``: the graph's and the node's names;
    - ``line``, ``column``: 1-based position of a JSON syntax error (or in a
      Compute expression);
    - ``hint``: the schedule hint concerned (``"tile"``).
    """

    def __init__(self, message, *, reason=None, pointer=None, graph=None, node=None,
                 line=None, column=None, hint=None):
        super().__init__(message)
        self.reason = message if reason is None else reason
        self.pointer = pointer
        self.graph = graph
        self.node = node
        self.line = line
        self.column = column
        self.hint = hint

    def __reduce__(self):
        # Pickled with its attributes (multiprocessing passes exceptions so).
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls, message, attributes):
    error = cls(message)
    error.__dict__.update(attributes)
    return error


class OptionError(UserError):
    """An option that does not fit the graph or batch, e.g. a parameter value
    for a dimension that no graph declares."""


class InternalError(Error):
    """A broken invariant inside Atoll: a bug in Atoll, never the caller's fault."""


# Shown as atoll.UserError (the package exports them), not atoll.errors.UserError.
for _cls in (Error, UserError, OptionError, InternalError):
    _cls.__module__ = "atoll"
del _cls
