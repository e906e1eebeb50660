"""``rankeval learn predict``: score a stream with a trained model."""

from __future__ import annotations

import click

from . import _common, _learn


@click.command(name="predict")
@_common.input_options
@_common.output_options()
@click.option("--model", "model_path", type=click.Path(dir_okay=False), required=True, metavar="FILE",
              help="A model written by 'rankeval learn train'.")
@_common.handle_errors
def command(inputs, output, model_path):
    """Score every item with a model: pred = -score, the score in a column.

    The model's score is higher = better. The stream convention is lower =
    better, so pred is written as minus the score, and every measure (tau, ndcg,
    report, ...) reads the output unchanged, without --higher-better; the raw
    score is kept in the column score. (A regression model trained on ranks
    predicts the rank itself: pred = the predicted gold rank.) Every other column
    passes through. The input must hold every feature column of the model (a
    missing one is an error naming it); the stream is processed batch by batch.

    \b
    Example:
      rankeval convert --from letor msn1.fold1.test.5k.txt.gz \\
        | rankeval learn predict --model ranksvm.json \\
        | rankeval ndcg --relevance grades --k 10
    """
    _learn.limit_blas_threads()
    from ..formats import writer
    from ..learn.model import load_model, predict_batches

    model = load_model(model_path)
    batches = inputs.read()
    with output.stream() as out:
        writer(output.format)(predict_batches(model, batches), out)
