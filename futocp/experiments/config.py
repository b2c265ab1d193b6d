"""Experiment configurations: the YAML schema, validated with file:line:col errors.

A configuration names instances, backends and how to run them::

    name: smoke
    instances:
      - path: instances/futoshiki/*.json        # files or globs, one instance per file
      - collection: ../instances/sudoku/top95.txt   # every puzzle of a many-puzzle file
        first: 10                               # (optional) only the first 10
      - generate: {family: futoshiki, size: 6, givens: 6, inequalities: 10, count: 3, seed: 1}
        group: fut6                             # (optional) the report's `group` column
    backends:
      - cpsat
      - {name: pyconstraint, options: {solver: recursive}, label: pyc-rec}
      - {name: anneal, options: {trace: 1000}, label: sa-trace, repetitions: 1}
    repetitions: 3
    time_limit: 10        # seconds per run (null = none)
    memory_limit: 4096    # MB per run (null = none): past it the run is unknown
    limit: 1              # solutions per run (null or "all" = every solution)
    filtering: lists      # or gac, or none, or a list to sweep
    executor: local       # local | dask
    workers: 1
    output: results/smoke # relative to the config file

Paths are relative to the configuration file. :func:`load_config` reads the
file, checks every key (an unknown key, a value of the wrong type or a path
that matches no file raises :class:`~futocp.errors.InputError` naming the key
and its ``CONFIG:LINE:COL``), reads or generates the instances and answers a
:class:`Config`. :func:`parse_config` does the same from text, and accepts a
plain mapping (the Python API).

Example:
    >>> cfg = parse_config('''
    ... name: demo
    ... instances:
    ...   - generate: {family: latin-square, size: 4, givens: 6, count: 2, seed: 3}
    ... backends: [cpsat, {name: cpsat, options: {formulation: boolean}, label: cpsat-bool}]
    ... filtering: [lists, none]
    ... ''', base_dir=".")
    >>> cfg.name, len(cfg.instances), [b.label for b in cfg.backends], cfg.filtering
    ('demo', 2, ['cpsat', 'cpsat-bool'], ('lists', 'none'))
    >>> parse_config("name: x\\nrepetitons: 3\\n", source="x.yaml")
    Traceback (most recent call last):
    ...
    futocp.errors.InputError: x.yaml:2:1: unknown key 'repetitons' (did you mean 'repetitions'?)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from ..backends import REGISTRY
from ..errors import FutocpError, InputError, closest, did_you_mean
from ..model import FILTERINGS
from ..yamlsafe import BoundedLoader
from .instances import Instance, collection_instances, generated_instances, path_instances

__all__ = ["Config", "BackendVariant", "load_config", "parse_config", "TOP_KEYS", "EXECUTORS",
           "MAX_REPETITIONS", "MAX_SECONDS", "MAX_RUNS", "MAX_MEMORY_MB"]

MAX_REPETITIONS = 100_000
MAX_SECONDS = 10 ** 7  # about four months: larger time limits are typing mistakes
MAX_MEMORY_MB = 2 ** 30  # a petabyte: larger memory limits are typing mistakes
MAX_RUNS = 1_000_000  # runs one config may plan

EXECUTORS = ("local", "dask")

#: Top-level keys and what they hold (the schema, also printed in docs/experiments.md).
TOP_KEYS: dict[str, str] = {
    "name": "experiment name (default: the config file's stem)",
    "description": "free text",
    "instances": "list of {path | collection | generate} entries (required)",
    "backends": "list of backend names or {name, options, label, repetitions}, or 'all' "
                "(every available backend, default options) (required)",
    "repetitions": "runs per (instance, backend variant, filtering); default 1",
    "time_limit": "seconds per run, or null for none; default 60",
    "limit": "solutions per run, null or 'all' for every solution; default 1",
    "filtering": "lists | gac | none, or a list of them to sweep; default lists",
    "seed": "seed passed to the backends that use one (repetition r gets seed + r; refused "
            "when none does); default null",
    "executor": "local | dask; default local",
    "workers": "runs in parallel; default 1 (fair timing)",
    "scheduler": "dask scheduler address (tcp://host:8786); none = a LocalCluster",
    "output": "output folder, relative to the config; default results/NAME",
    "margin": "seconds the runner waits beyond time_limit before killing a run; default 5",
    "backend_time_limit": "also give time_limit to the backend (default true); false = "
                          "only the runner's kill stops a run",
    "memory_limit": "MB each run may use, or null for none (default); a run past it is "
                    "stopped and recorded unknown with the reason",
    "report": "defaults of `futocp report`: {by: [columns], metric: wall_s}",
}
INSTANCE_KEYS = {
    "path": ("format", "group"),
    "collection": ("format", "first", "group"),
    "generate": ("group",),
}
BACKEND_KEYS = ("name", "options", "label", "repetitions")
REPORT_KEYS = ("by", "metric")


@dataclass(frozen=True)
class BackendVariant:
    """A backend with options: one column of the comparison.

    Attributes:
        name: The backend's REGISTRY name.
        options: Its options, as given (checked against the backend's declared options).
        label: The name shown in tables and plots (unique within a config).
        repetitions: Runs per (instance, filtering) of this variant; None = the
            config's ``repetitions``.
    """

    name: str
    options: tuple[tuple[str, Any], ...] = ()
    label: str = ""
    repetitions: int | None = None

    @property
    def option_map(self) -> dict[str, Any]:
        """Options as a dict."""
        return dict(self.options)


@dataclass(frozen=True)
class Config:
    """A validated experiment configuration (see the module docstring for the keys).

    Attributes:
        name: Experiment name.
        instances: The instances, read or generated.
        backends: The backend variants.
        repetitions: Runs per (instance, variant, filtering).
        time_limit: Seconds per run, or None.
        limit: Solutions per run, or None for all.
        filtering: The filtering modes swept.
        seed: Base seed for the backends, or None.
        executor: ``local`` or ``dask``.
        workers: Runs in parallel.
        scheduler: Dask scheduler address, or None.
        output: Absolute output folder.
        margin: Seconds of grace beyond the time limit before a run is killed.
        backend_time_limit: Whether the backend gets the time limit too.
        memory_limit: MB per run, or None.
        report_by: Default grouping columns of the report.
        report_metric: Default time column of the report.
        source: Where the config came from (file name or ``<config>``).
        text: The config text as read (copied next to the results).
        description: Free text.
    """

    name: str
    instances: tuple[Instance, ...]
    backends: tuple[BackendVariant, ...]
    repetitions: int = 1
    time_limit: float | None = 60.0
    limit: int | None = 1
    filtering: tuple[str, ...] = ("lists",)
    seed: int | None = None
    executor: str = "local"
    workers: int = 1
    scheduler: str | None = None
    output: str = "results"
    margin: float = 5.0
    backend_time_limit: bool = True
    memory_limit: float | None = None
    report_by: tuple[str, ...] = ("family", "size")
    report_metric: str = "wall_s"
    source: str = "<config>"
    text: str = ""
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- the reader
class _Reader:
    """Walks the composed YAML node tree, so that every error has a line and column."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.loader = BoundedLoader(text)

    def close(self) -> None:
        self.loader.dispose()

    def root(self) -> yaml.Node | None:
        try:
            return self.loader.get_single_node()
        except RecursionError:
            raise InputError("the config is nested too deeply", self.source) from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or "invalid YAML"
            raise InputError(f"invalid YAML: {problem}", self.source,
                             mark.line + 1 if mark else None,
                             mark.column + 1 if mark else None) from None
        except yaml.YAMLError as exc:
            raise InputError(f"invalid YAML: {exc}", self.source) from None

    def error(self, node: yaml.Node, message: str) -> InputError:
        mark = node.start_mark
        return InputError(message, self.source, mark.line + 1, mark.column + 1)

    def value(self, node: yaml.Node) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            raise self.error(node, f"invalid value: {exc.problem}") from None
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            raise self.error(node, f"invalid value: {str(exc)[:200]}") from None

    def mapping(self, node: yaml.Node, what: str,
                allowed: Mapping[str, Any] | tuple[str, ...] | None,
                ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """``{key: (key_node, value_node)}``; unknown and repeated keys are errors."""
        if not isinstance(node, yaml.MappingNode):
            raise self.error(node, f"{what}: expected a mapping, got {_kind(node)}")
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = self.value(key_node)
            if not isinstance(key, str):
                raise self.error(key_node, f"{what}: keys are names, got {key!r}")
            if key in out:
                raise self.error(key_node, f"{what}: key {key!r} appears twice")
            if allowed is not None and key not in allowed:
                close = closest(key, allowed)
                hint = f"did you mean {close!r}?" if close else f"known: {', '.join(allowed)}"
                where = "" if what == "config" else f"{what}: "
                raise self.error(key_node, f"{where}unknown key {key!r} ({hint})")
            out[key] = (key_node, value_node)
        return out

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(node, f"{what}: expected a list, got {_kind(node)}")
        return list(node.value)

    def scalar(self, node: yaml.Node, what: str, check: Callable[[Any], bool], expected: str,
               ) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(node, f"{what}: expected {expected}, got {_kind(node)}")
        value = self.value(node)
        if not check(value):
            raise self.error(node, f"{what}: expected {expected}, got {value!r}")
        return value


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "a value"


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_pos_int(x: Any) -> bool:
    return _is_int(x) and x >= 1


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_name(x: Any) -> bool:
    return isinstance(x, str) and x.strip() != ""


# ---------------------------------------------------------------- the parser
def load_config(path: str | os.PathLike[str]) -> Config:
    """Read and validate an experiment configuration file.

    Raises:
        InputError: naming ``CONFIG:LINE:COL`` and the key, for any problem.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise InputError("no such experiment config", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the config: {exc}", path) from None
    stem = os.path.splitext(os.path.basename(path))[0]
    return parse_config(text, source=path, base_dir=os.path.dirname(os.path.abspath(path)),
                        default_name=stem)


def parse_config(text: str | Mapping[str, Any], source: str = "<config>",
                 base_dir: str | os.PathLike[str] = ".", default_name: str = "experiment",
                 ) -> Config:
    """Validate a configuration given as YAML text (or as a mapping).

    Args:
        text: The YAML text, or a plain dict with the same keys.
        source: The name errors refer to.
        base_dir: The folder relative paths are resolved against.
        default_name: The name when the config has none.

    Raises:
        InputError: naming ``SOURCE:LINE:COL`` and the key, for any problem.
    """
    if isinstance(text, Mapping):
        text = yaml.safe_dump(dict(text), sort_keys=False)
    reader = _Reader(text, source)
    try:
        return _parse(reader, text, os.path.abspath(os.fspath(base_dir)), default_name)
    finally:
        reader.close()


def _parse(rd: _Reader, text: str, base: str, default_name: str) -> Config:
    root = rd.root()
    if root is None:
        raise InputError("the config is empty", rd.source, 1, 1)
    top = rd.mapping(root, "config", TOP_KEYS)
    for required in ("instances", "backends"):
        if required not in top:
            raise rd.error(root, f"missing key {required!r} ({TOP_KEYS[required]})")

    def get(key: str, check: Callable[[Any], bool], expected: str, default: Any) -> Any:
        if key not in top:
            return default
        return rd.scalar(top[key][1], key, check, expected)

    name = get("name", _is_name, "a name", default_name)
    description = get("description", lambda x: isinstance(x, str), "text", "")
    repetitions = get("repetitions", lambda x: _is_pos_int(x) and x <= MAX_REPETITIONS,
                      f"a positive integer up to {MAX_REPETITIONS:,}", 1)
    time_limit = get("time_limit",
                     lambda x: x is None or (_is_number(x) and 0 < x <= MAX_SECONDS),
                     f"a positive number of seconds up to {MAX_SECONDS:,} or null", 60.0)
    limit = get("limit", lambda x: x is None or x == "all" or _is_pos_int(x),
                "a positive integer, null or 'all'", 1)
    limit = None if limit == "all" else limit
    seed = get("seed", lambda x: x is None or (_is_int(x) and 0 <= x < 2 ** 63),
               "an integer from 0 to 2**63 - 1, or null", None)
    executor = get("executor", lambda x: x in EXECUTORS, " or ".join(EXECUTORS), "local")
    workers = get("workers", lambda x: _is_pos_int(x) and x <= 1024,
                  "a positive integer up to 1024", 1)
    scheduler = get("scheduler", lambda x: x is None or _is_name(x), "an address or null", None)
    if scheduler is not None and executor != "dask":
        raise rd.error(top["scheduler"][0], "scheduler: only used with executor: dask")
    output = get("output", _is_name, "a folder", os.path.join("results", name))
    margin = get("margin", lambda x: _is_number(x) and 0 <= x <= MAX_SECONDS,
                 f"a number of seconds from 0 to {MAX_SECONDS:,}", 5.0)
    backend_tl = get("backend_time_limit", lambda x: isinstance(x, bool), "true or false", True)
    memory_limit = get("memory_limit",
                       lambda x: x is None or (_is_number(x) and 0 < x <= MAX_MEMORY_MB),
                       f"a positive number of MB up to {MAX_MEMORY_MB:,} or null", None)

    filtering: tuple[str, ...] = ("lists",)
    if "filtering" in top:
        node = top["filtering"][1]
        items = rd.sequence(node, "filtering") if isinstance(node, yaml.SequenceNode) else [node]
        if not items:
            raise rd.error(node, "filtering: the list is empty")
        filtering = tuple(rd.scalar(n, "filtering", lambda x: x in FILTERINGS,
                                    " or ".join(FILTERINGS)) for n in items)
        if len(set(filtering)) != len(filtering):
            raise rd.error(node, "filtering: a mode is listed twice")

    report_by: tuple[str, ...] = ("family", "size")
    report_metric = "wall_s"
    if "report" in top:
        rep = rd.mapping(top["report"][1], "report", REPORT_KEYS)
        if "by" in rep:
            report_by = tuple(_names(rd, rep["by"][1], "report.by"))
        if "metric" in rep:
            report_metric = rd.scalar(rep["metric"][1], "report.metric", _is_name, "a column name")

    backends = _backends(rd, top["backends"][1])
    if seed is not None and not any("seed" in REGISTRY[b.name].capabilities for b in backends):
        raise rd.error(top["seed"][0], f"seed: none of the backends "
                       f"({', '.join(dict.fromkeys(b.name for b in backends))}) takes a seed "
                       "(their searches do not depend on one); leave it out")
    per_instance = len(filtering) * sum(b.repetitions or repetitions for b in backends)
    instances = _instances(rd, top["instances"][1], base, per_instance)
    runs = len(instances) * per_instance
    if runs > MAX_RUNS:
        raise rd.error(root, f"the config makes {runs:,} runs (at most {MAX_RUNS:,}): fewer "
                             "instances, backends or repetitions")
    return Config(
        name=name, instances=tuple(instances), backends=tuple(backends),
        repetitions=repetitions, time_limit=None if time_limit is None else float(time_limit),
        limit=limit, filtering=filtering, seed=seed, executor=executor, workers=workers,
        scheduler=scheduler, output=os.path.normpath(os.path.join(base, output)),
        margin=float(margin), backend_time_limit=backend_tl,
        memory_limit=None if memory_limit is None else float(memory_limit), report_by=report_by,
        report_metric=report_metric, source=rd.source, text=text, description=description)


def _names(rd: _Reader, node: yaml.Node, what: str) -> list[str]:
    if isinstance(node, yaml.SequenceNode):
        return [rd.scalar(n, what, _is_name, "a column name") for n in node.value]
    value = rd.scalar(node, what, _is_name, "a column name or a list of them")
    return [v.strip() for v in value.split(",") if v.strip()]


def _backends(rd: _Reader, node: yaml.Node) -> list[BackendVariant]:
    if isinstance(node, yaml.ScalarNode) and rd.value(node) == "all":
        names = [n for n, cls in REGISTRY.items() if cls.available() is True]
        if not names:
            raise rd.error(node, "backends: all: no backend is available here")
        return [BackendVariant(n, (), n) for n in names]
    items = rd.sequence(node, "backends")
    if not items:
        raise rd.error(node, "backends: the list is empty")
    out: list[BackendVariant] = []
    labels: dict[str, yaml.Node] = {}
    for i, item in enumerate(items):
        what = f"backends[{i}]"
        options: dict[str, Any] = {}
        label = None
        reps = None
        if isinstance(item, yaml.MappingNode):
            entry = rd.mapping(item, what, BACKEND_KEYS)
            if "name" not in entry:
                raise rd.error(item, f"{what}: missing key 'name'")
            name_node = entry["name"][1]
            if "options" in entry:
                opt_node = entry["options"][1]
                opts = rd.mapping(opt_node, f"{what}.options", None)
                options = {k: rd.value(v) for k, (_, v) in opts.items()}
            if "label" in entry:
                label = rd.scalar(entry["label"][1], f"{what}.label", _is_name, "a name")
            if "repetitions" in entry:
                reps = rd.scalar(entry["repetitions"][1], f"{what}.repetitions",
                                 lambda x: _is_pos_int(x) and x <= MAX_REPETITIONS,
                                 f"an integer in 1..{MAX_REPETITIONS}")
        else:
            name_node = item
        name = rd.scalar(name_node, f"{what}.name" if name_node is not item else what, _is_name,
                         "a backend name")
        if name not in REGISTRY:
            raise rd.error(name_node, f"{what}: unknown backend {name!r}"
                                      f"{did_you_mean(name, REGISTRY)} "
                                      f"(known: {', '.join(REGISTRY)})")
        try:
            REGISTRY[name].parse_options(options)
        except FutocpError as exc:
            raise rd.error(entry["options"][1], f"{what}.options: {exc}") from None
        if label is None:
            label = name if not options else name + "[" + ",".join(
                f"{k}={v}" for k, v in options.items()) + "]"
        if label in labels:
            raise rd.error(item, f"{what}: label {label!r} is used twice (give each variant "
                                 f"its own 'label')")
        labels[label] = item
        out.append(BackendVariant(name, tuple(options.items()), label, reps))
    return out


def _instances(rd: _Reader, node: yaml.Node, base: str, per_instance: int = 1
               ) -> list[Instance]:
    """The instances of the config; ``per_instance`` runs each (so that a config
    planning more than :data:`MAX_RUNS` runs is refused before generating them)."""
    items = rd.sequence(node, "instances")
    if not items:
        raise rd.error(node, "instances: the list is empty")
    out: list[Instance] = []
    for i, item in enumerate(items):
        what = f"instances[{i}]"
        if not isinstance(item, yaml.MappingNode):
            raise rd.error(item, f"{what}: expected a mapping with one of "
                                 f"{', '.join(INSTANCE_KEYS)}, got {_kind(item)}")
        given = rd.mapping(item, what, None)
        keys = [k for k in INSTANCE_KEYS if k in given]
        if not keys:  # a misspelt kind (paths:) is named, with the key it may stand for
            allowed = [k for kind in INSTANCE_KEYS for k in (kind, *INSTANCE_KEYS[kind])]
            rd.mapping(item, what, tuple(dict.fromkeys(allowed)))
        if len(keys) != 1:
            raise rd.error(item, f"{what}: give exactly one of {', '.join(INSTANCE_KEYS)}")
        kind = keys[0]
        entry = rd.mapping(item, what, (kind, *INSTANCE_KEYS[kind]))
        value_node = entry[kind][1]
        group = None
        if "group" in entry:
            group = rd.scalar(entry["group"][1], f"{what}.group", _is_name, "a group name")
        try:
            if kind == "generate":
                params = rd.mapping(value_node, f"{what}.generate", None)
                spec = {k: rd.value(v) for k, (_, v) in params.items()}
                count = spec.get("count", 1)
                if isinstance(count, int) and (len(out) + count) * per_instance > MAX_RUNS:
                    raise rd.error(value_node, f"the config makes more than {MAX_RUNS:,} runs: "
                                               "fewer instances, backends or repetitions")
                found = generated_instances(spec)
            else:
                fmt = None
                if "format" in entry:
                    fmt = rd.scalar(entry["format"][1], f"{what}.format", _is_name,
                                    "a format name")
                patterns = _names_or_list(rd, value_node, f"{what}.{kind}")
                if kind == "path":
                    found = path_instances(patterns, base, fmt)
                else:
                    first = None
                    if "first" in entry:
                        first = rd.scalar(entry["first"][1], f"{what}.first", _is_pos_int,
                                          "a positive integer")
                    found = collection_instances(patterns, base, fmt, first)
        except FutocpError as exc:
            raise rd.error(value_node, f"{what}.{kind}: {exc}") from None
        out.extend(replace(inst, group=group) if group else inst for inst in found)
    return out


def _names_or_list(rd: _Reader, node: yaml.Node, what: str) -> list[str]:
    if isinstance(node, yaml.SequenceNode):
        if not node.value:
            raise rd.error(node, f"{what}: the list is empty")
        return [rd.scalar(n, what, _is_name, "a path or glob") for n in node.value]
    return [rd.scalar(node, what, _is_name, "a path or glob")]
