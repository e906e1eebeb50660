"""The paper layout of a judges table (``judges --output-format markdown|latex`` and
``rankeval table`` on its TSV or JSON lines): one row per candidate, best first by the first
column, a column per headline statistic — label agreement, then each measure's ranking
agreement — each cell the value with its significance cluster as a superscript, the best
cluster in bold; a legend and the signatures under it."""

from __future__ import annotations

from ..vocabulary import TABLE_FORMATS

#: the headline statistics of the paper table, in order (the TSV holds every statistic)
LABEL_COLUMNS = ("kappa", "kappa_quadratic", "alpha_ordinal", "agreement_binary")
RANKING_COLUMNS = ("tau_b", "tau_ap", "spa", "sig_agreement", "best_rank_change")
HEADINGS = {"kappa": "κ", "kappa_quadratic": "κ_q", "alpha_ordinal": "α_ord", "agreement_binary": "agree_bin",
            "tau_b": "τ_b", "tau_ap": "τ_AP", "spa": "SPA", "sig_agreement": "sig", "best_rank_change": "Δrank₁"}
LATEX_HEADINGS = {"kappa": "$\\kappa$", "kappa_quadratic": "$\\kappa_q$", "alpha_ordinal": "$\\alpha_{ord}$",
                  "agreement_binary": "agree$_{bin}$", "tau_b": "$\\tau_b$", "tau_ap": "$\\tau_{AP}$",
                  "spa": "SPA", "sig_agreement": "sig", "best_rank_change": "$\\Delta$rank$_1$"}


def is_judges_table(first: dict) -> bool:
    return "section" in first and "candidate" in first and "statistic" in first


def read_judges_table(path: str):
    """The records of a judges table, or None when ``path`` holds another summary."""
    from ..formats.summary_reader import read_summaries

    records = read_summaries(path)
    first = next(records, None)
    if first is None or not is_judges_table(first[1]):
        return None
    return [first[1]] + [record for _, record in records]


def write_paper(out, records, fmt: str, digits: int | None = None) -> None:
    """The paper table of ``records`` (dicts as the command writes them or as read back); TSV and
    JSON lines hold the same cells, without the legend."""
    from ..formats.summary_reader import number
    from ..table_writers import latex_table, markdown_table

    from ..record_writer import TABLE_DIGITS

    digits = TABLE_DIGITS if digits is None else digits
    rows = [r for r in records if r.get("section") in ("labels", "ranking") and r.get("group") in ("all", None)]
    columns = [("labels", "", s) for s in LABEL_COLUMNS]
    measures = list(dict.fromkeys(r["measure"] for r in rows if r["section"] == "ranking"))
    columns += [("ranking", m, s) for m in measures for s in RANKING_COLUMNS]
    cells: dict = {}
    for r in rows:
        key = (r["section"], r.get("measure") or "", r["statistic"])
        if key in columns:
            cells[(r["candidate"], key)] = (number(r.get("value")), _int(r.get("cluster")), r["statistic"])
    candidates = list(dict.fromkeys(r["candidate"] for r in rows))
    first = columns[0]
    candidates.sort(key=lambda c: -(cells.get((c, first), (None,))[0] or float("-inf")))
    heads = LATEX_HEADINGS if fmt == "latex" else HEADINGS
    header = ["candidate"] + [heads[s] + (f" {m}" if m else "") for _, m, s in columns]
    body = [[c] + [_cell(cells.get((c, col)), fmt, digits) for col in columns] for c in candidates]
    if fmt not in TABLE_FORMATS:
        from ..record_writer import RecordWriter

        with RecordWriter(out, fmt) as writer:
            writer.write_many(dict(zip(header, row)) for row in body)
        return
    if fmt == "latex":
        from ..table_writers import latex_escape

        lines = latex_table(header, body).split("\n")
        # the heading row with its math intact (latex_table escapes every heading)
        lines[2] = " & ".join(["candidate"] + [heads[st] + (f" {latex_escape(m)}" if m else "")
                                               for _, m, st in columns]) + " \\\\"
        out.write("\n".join(lines))
    else:
        out.write(markdown_table(header, body))
    out.write(_legend(records, fmt))


def _int(value):
    from ..formats.summary_reader import number

    v = number(value) if value not in (None, "") else None
    return int(v) if v is not None and v == v else None


def _cell(found, fmt: str, digits: int) -> str:
    if found is None or found[0] is None or found[0] != found[0]:
        return "–"
    value, cluster, statistic = found
    text = f"{value:.0f}" if statistic == "best_rank_change" else f"{value:.{digits}f}"
    if cluster == 1:
        text = f"\\textbf{{{text}}}" if fmt == "latex" else f"**{text}**"
    if cluster is not None:
        text += f"$^{{{cluster}}}$" if fmt == "latex" else f"<sup>{cluster}</sup>"
    return text


def _legend(records, fmt: str) -> str:
    fleiss = next((r for r in records if r.get("section") == "fleiss" and r.get("group") in ("all", None)), None)
    sigs = list(dict.fromkeys(str(r["signature"]) for r in records if r.get("signature")
                              and r.get("section") in ("labels", "ranking")))
    settings = dict(part.split(":", 1) for part in (sigs[0].split("|") if sigs else []) if ":" in part)
    b, a, level = settings.get("bootstrap", "?"), settings.get("alpha", "?"), settings.get("rel_level", "1")
    if fmt == "latex":
        text = (f"Superscript: the candidate's significance cluster for the column (paired bootstrap tests over "
                f"topics, {b} replicates, $\\alpha$ = {a}); bold: the first cluster. $\\kappa$: Cohen's kappa, "
                "$\\kappa_q$: quadratic weights, $\\alpha_{ord}$: Krippendorff's ordinal alpha, agree$_{bin}$: "
                f"agreement at grade $\\geq$ {level}; per measure: $\\tau_b$, $\\tau_{{AP}}$, soft pairwise "
                "accuracy (SPA), agreement of t-test decisions (sig), the reference's best system's rank change "
                "($\\Delta$rank$_1$, lower is better). Intervals and every statistic: the TSV.")
    else:
        text = (f"Superscript: the candidate's significance cluster for the column (paired bootstrap tests over "
                f"topics, {b} replicates, alpha {a}); bold: the first cluster. κ: Cohen's kappa, κ_q: quadratic "
                f"weights, α_ord: Krippendorff's ordinal alpha, agree_bin: agreement at grade >= {level}; per "
                "measure: τ_b, τ_AP, soft pairwise accuracy (SPA), agreement of t-test decisions (sig), the "
                "reference's best system's rank change (Δrank₁, lower is better). Intervals and every statistic: "
                "the TSV.")
    if fleiss is not None:
        from ..formats.summary_reader import number

        text += f" Fleiss' kappa of the candidates: {number(fleiss.get('value')):.3f}."
    if fmt == "latex":
        lines = "".join(f"% signature: {s}\n" for s in sigs)
        return "\\par\\smallskip\n{\\footnotesize " + text + "\\par}\n" + lines
    return "\n" + text + "\n\n" + "".join(f"Signature: `{s}`\n" for s in sigs)
