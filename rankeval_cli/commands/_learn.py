"""Options shared by ``learn train`` and ``learn cv`` (click only at top level)."""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..vocabulary import OBJECTIVES, RANKSVM_LOSSES, RELEVANCE
from . import _common
from ._groups import option_group


@dataclass(frozen=True)
class ModelOptions:
    """--objective, --features, --relevance, --lambda, --loss, --hidden, --max-iter, --seed."""

    objective: str
    features: tuple = ()
    relevance: str = "ranks"
    l2: float | None = None
    loss: str | None = None
    hidden: int | None = None
    max_iter: int | None = None
    seed: int | None = None

    def hyperparameters(self) -> dict:
        """The model's hyperparameters with defaults filled in; a misplaced option is a usage error."""
        from ..learn.model import settings

        if self.loss is not None and self.objective != "ranksvm":
            raise click.UsageError("--loss applies to --objective ranksvm")
        try:
            return settings(self.objective, **{"lambda": self.l2, "loss": self.loss, "hidden": self.hidden,
                                               "max_iter": self.max_iter, "seed": self.seed})
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None


def model_options(f):
    """--objective, --features, --relevance, --lambda, --loss, --hidden, --max-iter, --seed: the
    command's ``model`` (:class:`ModelOptions`).

    ``--model`` named the objective before 1.0; it stays as a hidden alias (``learn predict
    --model FILE`` is the model file).
    """
    f = click.option("--seed", type=int, default=None, metavar="S",
                     help="Seed of weights and folds [default: 12345]\f"
                          "Seed of the network's initial weights (--hidden) and, for cv, of the folds "
                          "[default: 12345].")(f)
    f = click.option("--max-iter", "max_iter", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Most L-BFGS-B iterations [default: 1000]\f"
                          "Most L-BFGS-B iterations [default: 1000].")(f)
    f = click.option("--hidden", type=click.IntRange(min=0), default=None, metavar="H",
                     help="listnet, listmle: hidden tanh units [default: 0]\f"
                          "listnet, listmle: a network with one hidden layer of H tanh units instead of a "
                          "linear scorer [default: 0 = linear].")(f)
    f = click.option("--loss", type=click.Choice(RANKSVM_LOSSES), default=None,
                     help="ranksvm: pair loss [default: squared-hinge]\f"
                          "ranksvm: loss on each pair's margin; squared-hinge is smooth (Chapelle & Keerthi "
                          "2010) [default: squared-hinge].")(f)
    f = click.option("--lambda", "l2", type=_common.FiniteFloat(min=0), default=None, metavar="LAMBDA",
                     help="L2 penalty [default: 0.1]\f"
                          "L2 penalty (LAMBDA/2)|w|^2 on the weights; for ranksvm C = 1/(LAMBDA * pairs) "
                          "[default: 0.1].")(f)
    f = click.option("--relevance", type=click.Choice(RELEVANCE), default="ranks", show_default=True,
                     help="Gold holds ranks or grades [default: ranks]\f"
                          "ranks: gold holds ranks, lower = better (WMT, JCML); grades: graded relevance, "
                          "higher = better (LETOR).")(f)
    f = click.option("--features", "features", multiple=True, required=True, metavar="NAMES/PATTERNS",
                     help="Feature columns: names, patterns [required]\f"
                          "Feature columns: names and shell patterns, comma-separated or repeated (e.g. 'f*', "
                          "'tgt@*', 'unk,length'). Patterns skip text columns (named on stderr).")(f)
    f = click.option("--objective", "objective", cls=_common.AliasOption, aliases=("--model",),
                     type=click.Choice(OBJECTIVES), required=True, metavar="NAME",
                     help="ranksvm, listnet, listmle or regression [required]\f"
                          "Objective: ranksvm (pairwise hinge), listnet (top-one cross entropy), listmle "
                          "(Plackett-Luce likelihood), regression (ridge on the gold).")(f)
    return option_group(f, "model", ("objective", "features", "relevance", "l2", "loss", "hidden", "max_iter", "seed"),
                        ModelOptions)


#: environment variables naming the thread count of the BLAS libraries numpy may use
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def limit_blas_threads() -> None:
    """One BLAS thread unless the user set a count: called before numpy loads.

    Training multiplies a tall matrix by a vector at every step; threads gain
    little there and, on a machine whose cores are busy, OpenBLAS's waiting
    threads made L-BFGS steps several times slower (measured: 15x on the MSLR
    sample with 2 cores under load).
    """
    import os
    import sys

    if "numpy" not in sys.modules and not any(name in os.environ for name in BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        os.environ["MKL_NUM_THREADS"] = "1"


def load_table(inputs, model: ModelOptions, keep_batches=False, empty_ok=False):
    """The training table of the model's features and relevance."""
    from ..learn import data

    return data.load(inputs.read(), model.features, model.relevance, report=_common.warn, keep_batches=keep_batches,
                     empty_ok=empty_ok)
