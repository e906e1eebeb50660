"""cwl_eval as a library (Azzopardi, Thomas & Moffat 2019; cwl_eval 1.0.12): its gain, result, cost
and metrics files and the report it prints, per topic and metric, EU ETU EC ETC ED and with
``-r`` their residuals, ``%.4f``.

cwl_eval's rules (``cwl_eval.py``, ``ruler/ranking.py``, ``seeker/trec_qrel_handler.py``):

- the gain file is a qrels file whose relevance field is the gain (a number in [min_gain,
  max_gain]); the result file a TREC run whose second field is the element type, looked up in the
  cost file (``element_type cost`` per line; without one, or not found, a cost is the largest in the
  worst case, the smallest in the best); the metrics file names the models one per line as
  ``ClassName(param,...)`` (a parameter with a ``.`` is a number, else an integer);
- a topic's ranking is its documents *in the order of the file* (the rank and score fields are not
  read), a topic being a run of consecutive lines (a topic that comes back is evaluated again);
  the first ``max_depth`` documents count, and the ranking is padded to that depth.

Stricter than cwl_eval, each an error naming the file and line where it stops with a traceback: a
(topic, docno) given two gains (cwl_eval keeps the last), a line of the wrong shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError

#: cwl_eval's metrics when no metrics file is given
DEFAULT_METRICS = ("PrecisionCWLMetric(1)", "PrecisionCWLMetric(2)", "PrecisionCWLMetric(3)",
                   "PrecisionCWLMetric(4)", "PrecisionCWLMetric(5)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)",
                   "RBPCWLMetric(0.4)", "RBPCWLMetric(0.8)", "NDCGCWLMetric(5)", "NDCGCWLMetric(10)",
                   "RRCWLMetric()", "APCWLMetric()", "INSTCWLMetric(1.0)", "INSTCWLMetric(2.0)",
                   "INSTCWLMetric(3.0)")
HEADER = "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
RESIDUALS = "\tResEU\tResETU\tResEC\tResETC\tResED"


@dataclass(frozen=True)
class Options:
    """cwl_eval's command line."""

    cost_file: str | None = None
    metrics_file: str | None = None
    bib_file: str | None = None
    colnames: bool = False
    residuals: bool = False
    max_gain: float = 1.0
    min_gain: float = 0.0
    max_cost: float = 1.0
    min_cost: float = 1.0
    max_depth: int = 1000


@dataclass(frozen=True)
class Metric:
    """One model as a metrics file names it: its class, arguments and printed name."""

    cls: str
    args: tuple = ()
    name: str = field(default="", compare=False)


def metric(cls: str, args: tuple = ()) -> Metric:
    """The metric ``cls(*args)``, its name as cwl_eval prints it."""
    from .cwl_classes import MODELS

    if cls not in MODELS:
        raise ValueError(f"The class {cls} could not be found.")
    spec = MODELS[cls]
    values = dict(zip(spec.params, spec.defaults))
    if len(args) > len(spec.params):
        raise ValueError(f"{cls} takes {len(spec.params)} parameters, not {len(args)}")
    values.update(zip(spec.params, args))
    missing = [p for p in spec.params if values.get(p) is None]
    if missing:
        raise ValueError(f"{cls} needs {', '.join(missing)}")
    name = spec.name.format(**{k: str(v) for k, v in values.items()})
    return Metric(cls, tuple(values[p] for p in spec.params), name)


def parse_metric(text: str) -> Metric:
    """A metrics-file line, ``ClassName(p1,p2)``, read as cwl_eval reads it."""
    head, paren, rest = text.strip().partition("(")
    if not paren or not rest.endswith(")"):
        raise ValueError(f"'{text.strip()}' is not ClassName(parameters)")
    args = []
    for value in rest[:-1].split(","):
        if value == "":
            continue
        args.append(float(value) if "." in value else int(value))
    return metric(head, tuple(args))


def read_metrics(path: str | None) -> list:
    if path is None:
        return [parse_metric(m) for m in DEFAULT_METRICS]
    from ..inputs import iter_lines

    out = []
    for line, text in iter_lines(path):
        try:
            out.append(parse_metric(text))
        except ValueError as exc:
            raise DataError(str(exc), path, line) from None
    return out


def read_gains(path: str, options: Options) -> dict:
    """{topic: {docno: gain}}; a gain outside [min_gain, max_gain] or given twice is an error."""
    from ..inputs import iter_lines

    gains: dict = {}
    for line, text in iter_lines(path):
        parts = text.split()
        if len(parts) < 4:
            raise DataError(f"expected 4 fields (topic unused docno gain), found {len(parts)}", path, line)
        try:
            gain = float(parts[3])
        except ValueError:
            raise DataError(f"gain '{parts[3]}' is not a number", path, line) from None
        if gain > options.max_gain or gain < options.min_gain:
            raise DataError(f"gain {gain!r} outside [{options.min_gain!r}, {options.max_gain!r}] (--min_gain, "
                            "--max_gain)", path, line)
        topic = gains.setdefault(parts[0], {})
        if parts[2] in topic:
            raise DataError(f"docno {parts[2]} given two gains for topic {parts[0]}", path, line)
        topic[parts[2]] = gain
    return gains


def read_costs(path: str | None) -> dict:
    """{element type: cost}."""
    if path is None:
        return {}
    from ..inputs import iter_lines

    costs = {}
    for line, text in iter_lines(path):
        parts = text.split()
        if len(parts) != 2:
            raise DataError(f"expected 2 fields (element_type cost), found {len(parts)}", path, line)
        try:
            costs[parts[0]] = float(parts[1])
        except ValueError:
            raise DataError(f"cost '{parts[1]}' is not a number", path, line) from None
    return costs


def rankings(path: str, gains: dict, costs: dict):
    """Yield ``(topic, gains, costs)`` per run of consecutive lines of one topic, in file order (NaN: no
    gain, no cost)."""
    from ..inputs import iter_lines

    topic, g, c = None, [], []
    for line, text in iter_lines(path):
        parts = text.split()
        if len(parts) != 6:
            raise DataError(f"expected 6 fields (topic element_type docno rank score run), found {len(parts)}",
                            path, line)
        if parts[0] != topic:
            if topic is not None:
                yield topic, np.array(g), np.array(c)
            topic, g, c = parts[0], [], []
        g.append(gains.get(parts[0], {}).get(parts[2], np.nan))
        c.append(costs.get(parts[1], np.nan))
    if topic is None:
        raise DataError("the result file holds no line", path)
    yield topic, np.array(g), np.array(c)


def report(options: Options, gain_path: str, result_path: str, batch: int = 256):
    """Yield cwl_eval's lines (module docstring), topics batched for the models' arithmetic."""
    metrics = read_metrics(options.metrics_file)
    gains = read_gains(gain_path, options)
    costs = read_costs(options.cost_file)
    if options.colnames:
        yield HEADER + (RESIDUALS if options.residuals else "") + "\n"
    pending = []
    try:
        for topic in rankings(result_path, gains, costs):
            pending.append(topic)
            if len(pending) == batch:
                yield from _lines(pending, metrics, gains, options)
                pending = []
        if pending:
            yield from _lines(pending, metrics, gains, options)
    except DataError as error:  # a model's check of the gains (the reader's errors are located)
        raise error.located(gain_path)
    if options.bib_file:
        from ..outputs import atomic_output
        from .cwl_classes import bibtex

        with atomic_output(options.bib_file) as out:
            out.write(bibtex(metrics))


def _lines(topics, metrics, gains, options: Options):
    from ..measures.families import cwl_models as m
    from .cwl_classes import MODELS

    n = options.max_depth
    offsets = np.concatenate(([0], np.cumsum([len(g) for _, g, _ in topics])))
    g = np.concatenate([t[1] for t in topics]) if topics else np.zeros(0)
    c = np.concatenate([t[2] for t in topics]) if topics else np.zeros(0)
    worst = m.Vectors(m.padded(g, offsets, n, options.min_gain, options.min_gain),
                      m.padded(c, offsets, n, options.max_cost, options.max_cost))
    best = m.Vectors(m.padded(g, offsets, n, options.max_gain, options.max_gain),
                     m.padded(c, offsets, n, options.min_cost, options.min_cost)) if options.residuals else None
    rels = np.array([sum(v > 0 for v in gains.get(t, {}).values()) for t, _, _ in topics], dtype=np.float64)
    columns = ("EU", "ETU", "EC", "ETC", "ED") + (("ResEU", "ResETU", "ResEC", "ResETC", "ResED") if best else ())
    table = [m.quantities(worst, best, MODELS[x.cls].model(x.args, rels)) for x in metrics]
    for i, (topic, _, _) in enumerate(topics):
        for x, values in zip(metrics, table):
            yield f"{topic}\t{x.name}\t" + "\t".join(_fixed(values[k][i]) for k in columns) + "\n"


def _fixed(value: float) -> str:
    """``%.4f``, a value that rounds to zero as 0.0000 (where cwl_eval's sums may leave −0.0000)."""
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text
