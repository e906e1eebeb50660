"""The IR measures trec_eval lacks, one family per module, each a set of declarations in the registry
(:mod:`rankeval_cli.measures.trec.registry`): rankeval's own kernels beside ir_measures' names
(:mod:`.ranked`: ERR, Judged, rankDCG) and the diversity measures of the TREC Web track
(:mod:`.diversity`, ndeval's), the C/W/L user models (:mod:`.cwl`, cwl_eval's), agreement with the
qrels' order (:mod:`.ordering`: Compat, Accuracy) and group fairness (:mod:`.fairness`: rND, rKL,
rRD). Importing this package (the table) imports the families, which register their measures; the
name parser does so when a name is not one of trec_eval's."""

from ..trec import registry  # noqa: F401  (trec_eval's families first: theirs are the first positions)
from . import ranked, diversity, cwl, ordering, fairness  # noqa: F401  (each registers its measures)
