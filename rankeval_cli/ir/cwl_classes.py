"""cwl_eval's metric classes (``cwl/ruler/measures/``) as rankeval's C/W/L models
(:mod:`rankeval_cli.measures.families.cwl_models`): each class's parameters and defaults, the name
cwl_eval prints, the model, and the work to cite (``-b``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import DataError
from ..measures.families import cwl_models as m


@dataclass(frozen=True)
class ModelClass:
    """A cwl_eval metric class: ``model(args, rels)`` gives the continuation function of vectors."""

    params: tuple
    defaults: tuple
    name: str  # str.format of the parameters, as cwl_eval's name() prints them
    model: Callable
    cite: str


def _unit(name: str, continuation):
    """A model that needs gains in [0, 1] (cwl_eval's INST and NERR check them)."""
    def checked(v):
        if v.g.size and (np.min(v.g) < 0.0 or np.max(v.g) > 1.0):
            raise DataError(f"{name} needs gains in [0, 1] (the gain file, --max_gain, --min_gain)")
        return continuation(v)
    return checked


MODELS = {
    "PrecisionCWLMetric": ModelClass(("k",), (10,), "P@{k}", lambda a, r: lambda v: m.precision(v, a[0]), "rijsbergen"),
    "RBPCWLMetric": ModelClass(("theta",), (0.9,), "RBP@{theta}", lambda a, r: lambda v: m.rbp(v, a[0]), "rbp"),
    "NDCGCWLMetric": ModelClass(("k",), (None,), "NDCG-k@{k}", lambda a, r: lambda v: m.sdcg(v, a[0]), "dcg"),
    "RRCWLMetric": ModelClass((), (), "RR", lambda a, r: m.reciprocal_rank, "rr"),
    "APCWLMetric": ModelClass((), (), "AP", lambda a, r: m.average_precision, "harman"),
    "TrAPCWLMetric": ModelClass((), (), "TrAP", lambda a, r: lambda v: m.truncated_ap(v, r), "harman"),
    "INSTCWLMetric": ModelClass(("T",), (1.0,), "INST-T={T}",
                                lambda a, r: _unit("INST", lambda v: m.inst(v, a[0])), "inst"),
    "INSQCWLMetric": ModelClass(("T",), (1.0,), "INSQ-T={T}", lambda a, r: lambda v: m.insq(v, a[0]), "insq"),
    "BPMCWLMetric": ModelClass(("T", "K"), (1.0, 10), "BPM-Static-T={T}-K={K}",
                               lambda a, r: lambda v: m.bpm(v, a[0], a[1]), "bpm"),
    "BPMDCWLMetric": ModelClass(("T", "K", "hb", "hc", "gain_med"), (1, 10, 1.0, 1.0, 0.5),
                                "BPM-Dynamic-T={T}-K={K}-hb={hb}-hc={hc}",
                                lambda a, r: lambda v: m.bpm_dynamic(v, a[0], a[1], a[2], a[4]), "bpm"),
    "NERReq8CWLMetric": ModelClass(("k",), (None,), "NERR-EQ8@k={k}",
                                   lambda a, r: _unit("NERR", lambda v: m.nerr8(v, a[0])), "nerr"),
    "NERReq9CWLMetric": ModelClass(("k",), (None,), "NERR-EQ9@k={k}",
                                   lambda a, r: _unit("NERR", lambda v: m.nerr9(v, a[0])), "nerr"),
    "NERReq10CWLMetric": ModelClass(("phi",), (0.9,), "NERR-EQ10@phi={phi}",
                                    lambda a, r: _unit("NERR", lambda v: m.nerr10(v, a[0])), "nerr"),
    "NERReq11CWLMetric": ModelClass(("T",), (1.0,), "NERR-EQ11@T={T}",
                                    lambda a, r: _unit("NERR", lambda v: m.nerr11(v, a[0])), "nerr"),
    "TBGCWLMetric": ModelClass(("halflife",), (224,), "TBG-H@{halflife} ", lambda a, r: lambda v: m.tbg(v, a[0]),
                               "tbg"),
    "UMeasureCWLMetric": ModelClass(("L",), (1000,), "U-L@{L} ", lambda a, r: lambda v: m.u_measure(v, a[0]), "u"),
    "IFTGoalCWLMetric": ModelClass(("T", "b1", "R1"), (None, None, None), "IFT-C1-T={T}-b1={b1}-R1={R1}",
                                   lambda a, r: lambda v: m.ift(v, goal=a), "ift"),
    "IFTRateCWLMetric": ModelClass(("A", "b2", "R2"), (None, None, None), "IFT-C2-A={A}-b2={b2}-R2={R2}",
                                   lambda a, r: lambda v: m.ift(v, rate=a), "ift"),
    "IFTGoalRateCWLMetric": ModelClass(("T", "b1", "R1", "A", "b2", "R2"), (None,) * 6,
                                       "IFT-C1-C2-T={T}-b1={b1}-R1={R1}-A={A}-b2={b2}-R2={R2}",
                                       lambda a, r: lambda v: m.ift(v, goal=a[:3], rate=a[3:]), "ift"),
    "SETCWLMetric": ModelClass(("beta", "k"), (0.5, 10), "SET-k@{k}-b@{beta}",
                               lambda a, r: lambda v: m.set_measure(v, a[0], a[1]), "set"),
    "NPVCWLMetric": ModelClass(("rate",), (0.1,), "NPV-r@{rate}", lambda a, r: lambda v: m.npv(v, a[0]), "cwl"),
}

#: BibTeX of the works cited (``-b``): cwl_eval itself first, then one per model
BIBTEX = {
    "cwl": ("inproceedings", "azzopardi2019cwl", "Azzopardi, Leif and Thomas, Paul and Moffat, Alistair",
            "cwl\\_eval: An Evaluation Tool for Information Retrieval", "Proc. SIGIR", "2019"),
    "rijsbergen": ("book", "rijsbergen1979ir", "van Rijsbergen, C. J.", "Information Retrieval", "Butterworths",
                   "1979"),
    "rbp": ("article", "moffat2008rbp", "Moffat, Alistair and Zobel, Justin",
            "Rank-biased Precision for Measurement of Retrieval Effectiveness", "ACM Trans. Inf. Syst. 27(1)", "2008"),
    "dcg": ("article", "jarvelin2002cg", "J{\\\"a}rvelin, Kalervo and Kek{\\\"a}l{\\\"a}inen, Jaana",
            "Cumulated Gain-based Evaluation of IR Techniques", "ACM Trans. Inf. Syst. 20(4)", "2002"),
    "rr": ("article", "kantor2000trec", "Kantor, Paul and Voorhees, Ellen",
           "The TREC-5 Confusion Track", "Information Retrieval 2(2--3)", "2000"),
    "harman": ("article", "harman1992esir", "Harman, Donna", "Evaluation Issues in Information Retrieval",
               "Information Processing and Management 28(4)", "1992"),
    "inst": ("inproceedings", "moffat2015inst", "Moffat, Alistair and Bailey, Peter and Scholer, Falk and Thomas, Paul",
             "INST: An Adaptive Metric for Information Retrieval Evaluation", "Proc. ADCS", "2015"),
    "insq": ("inproceedings", "moffat2012models", "Moffat, Alistair and Scholer, Falk and Thomas, Paul",
             "Models and Metrics: IR Evaluation as a User Process", "Proc. ADCS", "2012"),
    "bpm": ("inproceedings", "zhang2017bpm", "Zhang, Fan and Liu, Yiqun and Li, Xin and Zhang, Min and Xu, Yinghui "
            "and Ma, Shaoping", "Evaluating Web Search with a Bejeweled Player Model", "Proc. SIGIR", "2017"),
    "nerr": ("inproceedings", "azzopardi2021err", "Azzopardi, Leif and Mackenzie, Joel and Moffat, Alistair",
             "{ERR} is not {C/W/L}: Exploring the Relationship Between Expected Reciprocal Rank and Other Metrics",
             "Proc. ICTIR", "2021"),
    "tbg": ("inproceedings", "smucker2012tbg", "Smucker, Mark D. and Clarke, Charles L. A.",
            "Time-based Calibration of Effectiveness Measures", "Proc. SIGIR", "2012"),
    "u": ("inproceedings", "sakai2013u", "Sakai, Tetsuya and Dou, Zhicheng", "Summaries, Ranked Retrieval and "
          "Sessions: A Unified Framework for Information Access Evaluation", "Proc. SIGIR", "2013"),
    "ift": ("inproceedings", "azzopardi2018ift", "Azzopardi, Leif and Thomas, Paul and Craswell, Nick",
            "Measuring the Utility of Search Engine Result Pages: An Information Foraging Based Measure",
            "Proc. SIGIR", "2018"),
    "set": ("inproceedings", "azzopardi2014set", "Azzopardi, Leif", "Modelling Interaction with Economic Models of "
            "Search", "Proc. SIGIR", "2014"),
}


def bibtex(metrics) -> str:
    """The BibTeX of cwl_eval and of each model used, each work once."""
    keys = list(dict.fromkeys(["cwl"] + [MODELS[x.cls].cite for x in metrics]))
    out = []
    for key in keys:
        kind, label, authors, title, where, year = BIBTEX[key]
        venue = "publisher" if kind == "book" else ("journal" if kind == "article" else "booktitle")
        out.append(f"@{kind}{{{label},\n  author = {{{authors}}},\n  title = {{{title}}},\n"
                   f"  {venue} = {{{where}}},\n  year = {{{year}}}\n}}\n")
    return "\n".join(out)
