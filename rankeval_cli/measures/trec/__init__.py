"""trec_eval's measures, and the registry of every IR measure.

The registry (:mod:`.registry`) is the base: a measure is one declaration in its family's
file. This package's ``__init__`` is the table of trec_eval's families — it imports them, and
each registers its measures and their ir_measures spellings on import: :mod:`.counts`,
:mod:`.precision`, :mod:`.average`, :mod:`.gain`, :mod:`.groups`, :mod:`.preferences`, every
``m_*.c`` file of trec_eval 10.0 computed over per-query intermediates shared by all the
measures of a batch (:mod:`.queries`). The measures trec_eval lacks are the families of
:mod:`rankeval_cli.measures.families`, imported when a name asks for them (``rankeval
trec_eval`` never does). Names: :mod:`.names` (trec_eval's and ir_measures' grammars),
:mod:`.params`; the evaluation of a batch: :mod:`.engine`.
"""

from . import counts, precision, average, gain, groups, preferences  # noqa: F401  (each registers its measures)
