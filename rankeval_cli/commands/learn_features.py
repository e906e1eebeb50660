"""``rankeval learn features``: append sentence-BLEU statistics and intra-set features to the stream."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_INTRA_KINDS, INTRA_KINDS, MISSING_REF, SMOOTH_METHODS, STREAM_FORMATS, TOKENIZERS
from . import _common


@click.command(name="features")
@_common.input_options
@_common.output_options(formats=STREAM_FORMATS)
@click.option("--hyp-column", default="tgt.text", show_default=True, metavar="COLUMN",
              help="Column of each item's translation\f"
                   "Column holding each item's translation (any text column, item or group included).")
@click.option("--ref-column", default="ref.text", show_default=True, metavar="COLUMN",
              help="Column holding each item's reference translation.")
@click.option("--tokenize", type=click.Choice(TOKENIZERS), default="13a", show_default=True,
              help="sacreBLEU tokenizer.")
@click.option("--lowercase", is_flag=True, help="Lowercase translation and reference before counting.")
@click.option("--smooth", type=click.Choice(SMOOTH_METHODS), default="add-k", show_default=True,
              help="Smoothing of the bleu column\f"
                   "Smoothing of the 'bleu' column: add-k = add one to matches and totals of n > 1 "
                   "(Lin & Och 2004, the smoothed BLEU of Duh 2008); exp, floor, none as sacreBLEU.")
@click.option("--missing-ref", type=click.Choice(MISSING_REF), default="error", show_default=True,
              help="An empty reference: error or drop\f"
                   "An item whose reference is empty: an error at its line, or dropped and counted on stderr.")
@click.option("--bleu/--no-bleu", default=True, show_default=True,
              help="Append the BLEU columns\f"
                   "Append the BLEU columns (--no-bleu: only the intra-set features, no text needed).")
@click.option("--intra-set", "intra_set", multiple=True, metavar="NAMES/PATTERNS",
              help="Intra-set features of these columns\f"
                   "Also append the intra-set features of these numeric columns (the BLEU columns included): "
                   "names and shell patterns, comma-separated or repeated.")
@click.option("--intra-kind", "intra_kinds", type=click.Choice(INTRA_KINDS), multiple=True, metavar="KIND",
              help="Intra-set features [default: rank, best, dmean]\f"
                   "Intra-set features to append, repeatable: F.rank (1 = highest), F.best, F.worst (1 for the "
                   "group's highest / lowest value), F.dmean (minus the group mean) [default: rank, best, dmean].")
@_common.handle_errors
def command(inputs, output, hyp_column, ref_column, tokenize, lowercase, smooth, missing_ref, bleu, intra_set,
            intra_kinds):
    """Append sentence-BLEU statistics and intra-set features to each item.

    Counts come from sacreBLEU (Post 2018): n-gram matches bleu_m1..bleu_m4 and
    totals bleu_t1..bleu_t4, precisions bleu_p1..bleu_p4, lengths bleu_hyp_len and
    bleu_ref_len (tokens), their ratio bleu_ratio, the brevity penalty bleu_bp, the
    smoothed sentence BLEU bleu (0-100; --smooth) and bleu_unsmoothed, as the
    features of Duh (2008). Texts are stripped of surrounding white space; an empty
    translation is an empty output (BLEU 0), an empty reference is missing
    (--missing-ref). Every other column passes through.

    --intra-set F appends the intra-set features of Duh (2008), generalised: the
    item's rank by F within its group (F.rank, tied values sharing the mean of
    their positions), whether it holds the group's best value (F.best; higher =
    better), and its difference from the group mean (F.dmean). Definitions:
    docs/learn-features.md.

    \b
    Example:
      rankeval convert --from jcml --keep-text examples/wmt10-de-en.ref.jcml \\
        | rankeval learn features --exclude-systems _ref
    """
    from ..formats import writer

    if not bleu and not intra_set:
        raise click.UsageError("--no-bleu leaves nothing to append without --intra-set")
    batches = inputs.read()
    if bleu:
        batches = _with_bleu(batches, hyp_column, ref_column, tokenize, lowercase, smooth, missing_ref)
    if intra_set:
        batches = _with_intra_set(batches, intra_set, intra_kinds or DEFAULT_INTRA_KINDS)
    with output.stream() as out:
        writer(output.format)(batches, out)


def _with_intra_set(batches, specs, kinds):
    """Each batch with the intra-set columns ``F.KIND`` of the selected features appended."""
    from ..errors import DataError
    from ..formats.columns import format_numbers
    from ..learn.data import feature_matrix, select
    from ..learn.features import intra_set, intra_set_name

    names = None
    for batch in batches:
        if names is None:
            try:
                names = select(batch, specs, report=_common.warn).names
            except DataError:
                if batch.n_rows == 0:  # an empty input (no columns): an empty result
                    yield batch
                    continue
                raise
            clash = [intra_set_name(n, k) for n in names for k in kinds if intra_set_name(n, k) in batch.extra]
            if clash:
                raise DataError(f"the input already has a column {clash[0]!r}", batch.source, 1)
        X = feature_matrix(batch, names)
        columns = intra_set({name: X[:, j] for j, name in enumerate(names)}, batch.offsets, kinds)
        extra = dict(batch.extra)
        extra.update({name: format_numbers(values) for name, values in columns.items()})
        yield batch.with_values(extra=extra)


def _with_bleu(batches, hyp_column, ref_column, tokenize, lowercase, smooth, missing_ref):
    """Each batch with the BLEU columns appended (as text, like every extra column)."""
    import numpy as np

    from ..errors import DataError
    from ..formats.columns import format_numbers
    from ..learn.features import BLEU_COLUMNS, bleu_features

    def texts(batch, column):
        """The stripped text of every row in ``column`` (an extra column, or item or group)."""
        if column == "item":
            values = batch.item.tolist()
        elif column == "group":
            values = np.repeat(batch.group, batch.sizes).tolist()
        else:
            values = batch.extra[column].tolist()
        return [text.strip() for text in values]

    dropped = dropped_groups = 0
    for batch in batches:
        absent = [c for c in (hyp_column, ref_column) if c not in ("item", "group") and c not in batch.extra]
        if absent and batch.n_rows > 0:  # an empty input needs no text
            raise DataError(f"no column {absent[0]!r} (JCML: convert --from jcml --keep-text; or name the "
                            f"column with --hyp-column/--ref-column)", batch.source, 1)
        clash = [c for c in BLEU_COLUMNS if c in batch.extra]
        if clash:
            raise DataError(f"the input already has a column {clash[0]!r}", batch.source, 1)
        refs = texts(batch, ref_column) if batch.n_rows else []
        missing = np.fromiter((not text for text in refs), dtype=bool, count=len(refs))
        if missing.any():
            row = int(np.argmax(missing))
            if missing_ref == "error":
                group = batch.group[np.searchsorted(batch.offsets, row, side="right") - 1]
                raise DataError(f"item {batch.item[row]!r} of group {group!r} has no reference text in column "
                                f"{ref_column!r} (--missing-ref drop skips such items)", *batch.row_location(row))
            kept = batch.select_rows(~missing)
            dropped += int(missing.sum())
            dropped_groups += batch.n_groups - kept.n_groups
            refs = [text for text, gone in zip(refs, missing.tolist()) if not gone]
            batch = kept
        hyps = texts(batch, hyp_column) if batch.n_rows else []
        features = bleu_features(hyps, refs, tokenize=tokenize, lowercase=lowercase, smooth=smooth)
        extra = dict(batch.extra)
        extra.update({name: format_numbers(values) for name, values in features.items()})
        yield batch.with_values(extra=extra)
    if dropped:
        _common.warn(f"dropped {dropped} items without a reference text"
                     + (f" ({dropped_groups} groups left empty)" if dropped_groups else ""))
