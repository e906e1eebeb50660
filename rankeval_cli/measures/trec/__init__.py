"""trec_eval's measures as one registry (:mod:`.registry`): every ``m_*.c`` file of trec_eval
10.0 a small definition computed over per-query intermediates shared by all the measures of a
batch (:mod:`.queries`), in families (:mod:`.counts`, :mod:`.precision`, :mod:`.average`,
:mod:`.gain`, :mod:`.groups`, :mod:`.preferences`); the names of trec_eval and ir_measures
(:mod:`.names`, :mod:`.params`); and the evaluation of a batch (:mod:`.engine`)."""
