"""Realistic TREC qrels and runs for the IR tests, made from a seed.

Graded 0-4 qrels with some negative grades, judged documents the run does not
retrieve, unjudged retrieved documents, tied scores, runs shorter than the cut-offs,
queries without any relevant document, queries only in the qrels and only in the run,
docnos of mixed length (so byte order matters in ties).
"""

from __future__ import annotations

import random


def make(seed: int, n_queries: int = 40, runs: int = 1, max_docs: int = 60, tie_share: float = 0.15,
         numeric_qids: bool = False, max_grade: int = 4):
    rnd = random.Random(seed)
    qrels, run_lists = [], [[] for _ in range(runs)]
    for q in range(n_queries):
        qid = str(100 + q) if numeric_qids else rnd.choice(["q", "Q", "topic-"]) + str(q)
        pool = [rnd.choice(["d", "D", "doc", "clueweb-"]) + str(rnd.randrange(10 ** rnd.randint(1, 5)))
                for _ in range(rnd.randint(5, 2 * max_docs))]
        pool = list(dict.fromkeys(pool))
        kind = rnd.random()
        in_qrels = kind > 0.08
        in_run = kind < 0.92
        if in_qrels:
            judged = rnd.sample(pool, rnd.randint(1, len(pool)))
            no_relevant = rnd.random() < 0.1
            for d in judged:
                g = 0 if no_relevant else rnd.choice([0, 0, 0, 1, 1, 2, 3, max_grade, -1] if rnd.random() < 0.3
                                                     else [0, 0, 1, 2])
                qrels.append((qid, rnd.choice(["0", "Q0", "1"]), d, g))
        if in_run:
            for r in range(runs):
                n = rnd.randint(0 if rnd.random() < 0.05 else 1, min(len(pool), max_docs))
                docs = rnd.sample(pool, n)
                scores = []
                for i, d in enumerate(docs):
                    if scores and rnd.random() < tie_share:
                        s = rnd.choice(scores)
                    else:
                        s = round(rnd.uniform(-5, 30), rnd.choice([0, 1, 2, 4]))
                    scores.append(s)
                for i, (d, s) in enumerate(zip(docs, scores)):
                    run_lists[r].append((qid, d, i + 1, s, f"run{r}"))
    rnd.shuffle(qrels)
    return qrels, run_lists


def write_qrels(path, qrels, sep=" "):
    with open(path, "w") as f:
        for qid, it, d, g in qrels:
            f.write(sep.join((qid, it, d, str(g))) + "\n")


def write_run(path, run, sep=" "):
    with open(path, "w") as f:
        for qid, d, rank, s, tag in run:
            f.write(sep.join((qid, "Q0", d, str(rank), repr(float(s)), tag)) + "\n")


def pytrec_inputs(qrels, run):
    q, r = {}, {}
    for qid, _, d, g in qrels:
        q.setdefault(qid, {})[d] = int(g)
    for qid, d, _, s, _ in run:
        r.setdefault(qid, {})[d] = float(s)
    return q, r
