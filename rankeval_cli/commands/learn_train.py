"""``rankeval learn train``: fit a ranker on feature columns and write a JSON model."""

from __future__ import annotations

import click

from . import _common, _learn


@click.command(name="train")
@_common.input_options
@_learn.model_options
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write the model here instead of stdout; written to a temporary file and renamed.")
@_common.handle_errors
def command(inputs, model, output):
    """Train a ranker on the feature columns of a stream; write the model as JSON.

    The whole training stream is read into memory as a float matrix (8 bytes per
    feature and item). Features are z-scored with the training data's mean and
    standard deviation, stored in the model. Items without a gold value, and (for
    the ranking objectives) groups whose items all share one gold value, are left
    out and counted on stderr. A missing or non-numeric feature value, or a
    feature constant on the training data, is an error naming it.

    Objectives (docs/learn.md): ranksvm (Joachims 2002; Chapelle & Keerthi 2010),
    listnet (Cao et al. 2007), listmle (Xia et al. 2008; gold ties by Breslow's
    rule), regression (ridge on the gold value). Linear runs are deterministic;
    --hidden networks start from --seed; the same command gives the same bytes.

    \b
    Examples:
      rankeval convert --from letor msn1.fold1.train.5k.txt.gz \\
        | rankeval learn train --objective ranksvm --features 'f*' \\
          --relevance grades -o ranksvm.json
      rankeval learn train --objective listmle --features 'tgt@*prob,tgt@unk' \\
        -o qe.json examples/wmt10-de-en.xf.jcml
    """
    _learn.limit_blas_threads()
    from ..learn.model import train_model

    hp = model.hyperparameters()
    table = _learn.load_table(inputs, model)
    from ..pipeline import phase

    with phase("training"):
        trained = train_model(table, model.objective, hp, model.relevance, report=_common.warn)
    with _common.output_stream(output) as out:
        out.write(trained.to_json())
