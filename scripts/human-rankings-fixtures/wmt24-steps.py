"""Print every number of WMT24's ranking steps on ESA exports, computed by WMT24's own functions.

Run by ``run-peers`` with an interpreter that has pandas and scipy, in a working directory
laid out as WMT24's ``humeval/`` (its ``tools.py`` importable, a ``../txt`` tree beside it):

    python wmt24-steps.py FILE...

WMT24's ``calculate_clusters.main()`` (wmt-conference/wmt24-news-systems) reads the waves with
``tools.load_data``, attaches the documents' domains with ``tools.attach_resources``, averages
several ratings of one item, macro-averages each system's scores over the domains, and calls
``tools.get_pvalues``, ``tools.get_ranks`` and ``tools.get_clusters``; ``main()`` prints only
rounded numbers, so these lines make the same calls and print all of them: per system its
position, the macro-average (``repr``), the number of segments, wins, losses, rank range,
cluster and per-domain means; then p_ab and p_ba of every pair. Nothing of WMT24's code is
copied here: its functions are imported from the working directory.
"""

import sys

import pandas as pd
import scipy

import tools  # WMT24's humeval/tools.py, from the working directory


def scores(paths):
    frame = tools.attach_resources(pd.concat([tools.load_data(path) for path in paths]))
    keys = ["annot_id", "lp", "system_id", "orig_segment_id"]
    if frame.groupby(keys).ngroups != len(frame):  # several ratings of an item: main() averages them
        frame = frame.groupby(keys).agg({"overall": "mean"}).reset_index()
    return frame


def ranking(frame):
    """(systems in order, macro-averages, per-domain means) as main() orders them."""
    domain_means = frame.groupby(["system_id", "domain_name"])["overall"].mean().reset_index()
    macro = domain_means.groupby("system_id")["overall"].mean().reset_index().set_index("system_id", drop=False)
    return macro.sort_values("overall", ascending=False), domain_means


def main(paths):
    frame = scores(paths)
    print(f"# WMT24 calculate_clusters steps (tools.py of wmt-conference/wmt24-news-systems), "
          f"pandas {pd.__version__}, scipy {scipy.__version__}; inputs: {' '.join(paths)}")
    print("lp\tsystem\tposition\tvalue\tsegments\twins\tlosses\tlo\thi\tcluster\tdomain_means")
    pairs = []
    for lp in sorted(frame["lp"].unique()):
        part = frame[frame["lp"] == lp]
        if part.groupby("system_id")["annot_id"].count().mean() < 100:  # main() skips such a pair
            print(f"# {lp}: skipped, fewer than 100 annotations per system")
            continue
        order, domain_means = ranking(part)
        pvalues = tools.get_pvalues(part, True)
        ranks, wins, losses = tools.get_ranks(pvalues, order)
        clusters = tools.get_clusters(pvalues, order)
        segments = part.groupby("system_id")["orig_segment_id"].count()
        systems = list(order["system_id"])
        for position, system in enumerate(systems, 1):
            mine = domain_means[domain_means["system_id"] == system]
            per_domain = ";".join(f"{d}={float(v)!r}" for d, v in zip(mine["domain_name"], mine["overall"]))
            print(f"{lp}\t{system}\t{position}\t{float(order.loc[system, 'overall'])!r}\t{segments[system]}\t"
                  f"{wins[system]}\t{losses[system]}\t{ranks[system][0]}\t{ranks[system][1]}\t"
                  f"{clusters[system]}\t{per_domain}")
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                pairs.append(f"{lp}\t{a}\t{b}\t{float(pvalues[a, b])!r}\t{float(pvalues[b, a])!r}")
    print("lp\tsystem_a\tsystem_b\tp_ab\tp_ba")
    print("\n".join(pairs))


if __name__ == "__main__":
    main(sys.argv[1:])
