"""``rankeval learn cv``: K-fold cross-validation by group, streamed on to any measure."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_SEED
from . import _common, _learn


@click.command(name="cv")
@_common.input_options
@_common.output_options()
@_common.jobs_options
@_learn.model_options
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True, metavar="K",
              help="Number of folds\f"
                   "Number of folds; groups are dealt into folds by a permutation seeded with --seed.")
@click.option("--models-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Also write each fold's model to DIR/fold<k>.json.")
@_common.handle_errors
def command(inputs, output, model, folds, models_dir):
    """Cross-validate a ranker: every group scored once, by a model that never saw it.

    Groups are dealt into K folds by a seeded permutation (fold sizes differ by at
    most one group). For each fold a model, scaling included, is trained on the
    other folds and scores this fold's groups. The output is the input stream in
    its order with pred = -score (lower = better, so measures read it
    unchanged), the score in the column score and the fold (1..K) in fold. The
    same command and --seed give the same bytes.

    \b
    Examples:
      rankeval learn cv --objective ranksvm --features 'tgt@*prob,tgt@unk' \\
        examples/wmt10-de-en.xf.jcml | rankeval tau
      rankeval convert --from letor msn1.fold1.train.5k.txt.gz \\
        | rankeval learn cv --objective listnet --features 'f*' \\
          --relevance grades \\
        | rankeval ndcg --relevance grades --k 10
    """
    _learn.limit_blas_threads()
    import os

    from ..formats import writer
    from ..learn.cv import cross_validate, scored_batches

    hp = model.hyperparameters()
    fold_seed = model.seed if model.seed is not None else DEFAULT_SEED
    table = _learn.load_table(inputs, model, keep_batches=True, empty_ok=True)
    if table is None:  # an empty input is an empty result, as for every stream command
        with output.stream():
            return
    from ..pipeline import phase

    with phase(f"training {folds} folds"):
        scores, fold_of_row, models = cross_validate(table, model.objective, hp, model.relevance, folds, fold_seed,
                                                     report=_common.warn)
    if models_dir:
        os.makedirs(models_dir, exist_ok=True)
        for k, trained in enumerate(models, start=1):
            trained.training["fold"] = k
            trained.training["folds"] = {"k": folds, "seed": fold_seed}
            with _common.output_stream(os.path.join(models_dir, f"fold{k}.json")) as out:
                out.write(trained.to_json())
    with output.stream() as out:
        writer(output.format)(scored_batches(table, scores, fold_of_row), out)
