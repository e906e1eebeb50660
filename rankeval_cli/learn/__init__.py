"""Learning to rank: features, scaling, models and cross-validation over batches.

Every stage reads batches and writes batches (``pred`` filled by the models), so
the measures score a learned ranker unchanged.
"""
