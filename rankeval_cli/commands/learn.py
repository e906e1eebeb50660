"""``rankeval learn``: train, apply and cross-validate rankers on feature columns.

A click group whose subcommands load lazily from their own modules
(``learn_<name>.py``, each defining ``command``), like the top-level commands.
"""

from __future__ import annotations

import click

from ._subcommands import lazy_group

#: subcommand -> (module, one-line help); a new subcommand is one line here.
SUBCOMMANDS = {
    "train": ("learn_train", "Train a ranker (ranksvm, listnet, listmle, regression)."),
    "predict": ("learn_predict", "Score a stream with a model: pred = -score."),
    "cv": ("learn_cv", "K-fold cross-validation by group."),
    "features": ("learn_features", "Append sentence-BLEU and intra-set features."),
}


@click.group(name="learn", cls=lazy_group(SUBCOMMANDS))
def command():
    """Learn rankers from feature columns; score with them; cross-validate.

    Features are extra numeric columns: LETOR/SVMlight files give f1..fM
    (rankeval convert --from letor), JCML gives tgt@ATTR, and learn features
    appends sentence-BLEU statistics and intra-set features. Models are linear or
    (listnet, listmle) one-hidden-layer networks on z-scored features, trained
    with L-BFGS-B; see docs/learn.md for each objective's equation.

    Model scores are higher = better. Output streams carry pred = -score (lower =
    better, as every stream), so measures apply unchanged, and the score itself in
    the column score.

    \b
    Examples:
      rankeval learn train --objective ranksvm --features 'f*' \\
        --relevance grades -o m.json train.tsv
      rankeval learn predict --model m.json test.tsv \\
        | rankeval ndcg --relevance grades --k 10
      rankeval learn cv --objective listmle --features 'tgt@unk,tgt@length' \\
        examples/wmt10-de-en.xf.jcml | rankeval tau
    """
