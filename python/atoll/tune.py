"""Tuning from Python (docs/tuning.md): the knob spaces of a batch's
clusters, points applied (the schedule they give) and measured (A/B against
the default in a child `atoll tune-worker`), and the records database.

    import atoll.tune as tune
    space = tune.spaces("set.json", graph="gemm_512")[0]
    print(tune.explain(space, space.default, "tile_for_cpu", path="set.json"))
    m = tune.Measurer()                      # the atoll executable: ATOLL_EXE or atoll on PATH
    rec = m.measure("set.json", space, point)   # {"status": "ok", "ratio": 1.08, ...}
    tune.append_record("db.jsonl", rec)      # atoll compile --records db.jsonl applies the best

A measurement runs in a child process: a crash, a hang (past `timeout`) or
wrong outputs come back as the record's status, never as an exception.
"""

import json as _json
import os as _os
import shutil as _shutil

from . import _atoll

__all__ = ["Space", "spaces", "explain", "Measurer", "read_records", "append_record", "machine_id"]


class Space:
    """One cluster's space: graph, cluster, key, family, shape, and knobs (a
    list of dicts: name, type, values, default, description)."""

    def __init__(self, d):
        self.graph, self.cluster, self.key = d["graph"], d["cluster"], d["key"]
        self.family, self.shape, self.knobs = d["family"], list(d["shape"]), d["knobs"]

    @property
    def default(self):
        """The cost model's point: every knob at its default."""
        return {k["name"]: k["default"] for k in self.knobs}

    def size(self):
        n = 1
        for k in self.knobs:
            n *= max(1, len(k["values"]))
        return n

    def __repr__(self):
        return f"Space({self.graph}/{self.cluster}, key {self.key}, {len(self.knobs)} knobs, {self.size()} points)"


def spaces(path, graph="", params=None):
    """The spaces of every cluster with knobs of a batch file (once per key)."""
    return [Space(d) for d in _atoll.search_spaces(_os.fspath(path), graph, params or {}) if d["knobs"]]


def explain(space, point, stage="schedule", path=None):
    """The graph's `stage` (as `atoll explain` prints it) with `point` applied
    to the space's cluster; `path` is the batch file."""
    if path is None:
        raise ValueError("explain: give the batch file as path=")
    return _atoll.explain_point(_os.fspath(path), space.graph, space.key,
                                {k: str(v) for k, v in point.items()}, stage)


def _atoll_exe(atoll):
    exe = atoll or _os.environ.get("ATOLL_EXE") or _shutil.which("atoll")
    if not exe:
        raise FileNotFoundError("the atoll executable runs the measurements: pass atoll=PATH or set ATOLL_EXE")
    return _os.fspath(exe)


class Measurer:
    """Measures points one at a time in a child `atoll tune-worker`
    (`timeout` seconds each, `memory_mb` of address space, 0 = no limit)."""

    def __init__(self, atoll=None, timeout=30.0, memory_mb=0, params=None):
        self._m = _atoll._PointMeasurer(_atoll_exe(atoll), float(timeout), int(memory_mb), params or {})

    def measure(self, path, space, point, verify="default"):
        """A record (dict): status ok|wrong|crash|timeout|error, ms,
        default_ms, ratio (default / point), verified, error."""
        line = self._m.measure(_os.fspath(path), space.graph, space.cluster, space.key, space.family,
                               space.shape, {k: str(v) for k, v in point.items()}, verify)
        return _json.loads(line)


def read_records(path):
    """Every record of a records file, as dicts."""
    return [_json.loads(line) for line in _atoll.read_records(_os.fspath(path))]


def append_record(path, record):
    """Appends a record (a dict, as measure returns) to a records file."""
    _atoll.append_record(_os.fspath(path), _json.dumps(record))


def machine_id():
    """This machine as records name it (ATOLL_TUNE_MACHINE overrides it)."""
    return _atoll.tune_machine_id()
