"""Uncertainty of summary measures: bootstrap intervals over groups and paired tests.

Everything here works on per-group sufficient statistics kept during the single
streaming pass (a few float64 columns per group), never on the input rows:

* :mod:`.resample` — percentile bootstrap over groups (``--ci``);
* :mod:`.paired_resampling` — paired bootstrap test and paired approximate randomization
  between predictions of the same gold (``rankeval compare``).
"""
