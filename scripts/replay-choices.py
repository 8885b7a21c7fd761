#!/usr/bin/env python3
"""Replays a job's choices under other ways of dividing out the prior, from the scores the model gave.

    FM_LOG_CHOICES=1 FM_SHORTLIST=64 fm eval FILE.jsonl --no-cache 2> choices.log
    scripts/replay-choices.py FILE.jsonl choices.log

`FM_LOG_CHOICES=1` makes the engine write one `--- choice {json}` line per scored choice: every candidate's token
log-probabilities, for the calibration texts and for the job's texts. This script takes each text's first choice
(a classification's label, or the first label of a list), decides it again under each prior below, and scores the
decisions against the file's gold `label` (accuracy / macro-F1) or `labels` (precision / recall / F1 of one label per
text). The first rows should match what `fm eval` printed: that checks the replay before its other rows are read.
The three rows after the priors mix each text's calibrated probabilities with those of the job's texts most like
it (BM25), the lever that benchmarks/quality.md's section "Similar texts of the same job" measures.

Nothing here runs the model, so each row costs milliseconds instead of a run of `fm eval`.
"""
import argparse
import collections
import json
import math
import re
import sys

MARKER = "--- choice "


def read_log(path):
    """The first logged choice of each calibration text and of each job text, in order."""
    calibration, job, seen = [], [], set()
    with open(path, errors="replace") as log:
        for line in log:
            if not line.startswith(MARKER):
                continue
            entry = json.loads(line[len(MARKER):])
            key = (entry["calibration"], entry["text"])
            if key in seen:
                continue
            seen.add(key)
            (calibration if entry["calibration"] else job).append(entry)
    return calibration, job


def matrix(entries, values):
    """Per entry and value: the token log-probabilities, or None when the value was not scored (shortlisted out)."""
    rows = []
    for entry in entries:
        scored = {c["value"]: c["tokens"] for c in entry["candidates"]}
        rows.append([scored.get(value) for value in values])
    return rows


def log_mean_exp(xs):
    xs = [x for x in xs if x > -math.inf]
    if not xs:
        return -math.inf
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs) / len(xs))


def totals(rows):
    """Per row and value: the value's log-probability, or -inf when it was not scored."""
    return [[sum(t) if t is not None else -math.inf for t in row] for row in rows]


def token_prior(rows):
    """The engine's batch prior: per token position, the log of the mean probability, summed over the tokens."""
    prior = []
    for j in range(len(rows[0])):
        tokens = [row[j] for row in rows if row[j] is not None]
        if not tokens or len({len(t) for t in tokens}) != 1:
            prior.append(0.0)
            continue
        prior.append(sum(log_mean_exp([t[k] for t in tokens]) for k in range(len(tokens[0]))))
    return prior


def subtract(scores, bias, weight=1.0):
    return [[s - weight * b for s, b in zip(row, bias)] for row in scores]


def balancing_bias(scores, iterations=200):
    """Biases that make the mean of softmax(scores - bias) over the rows equal for every value."""
    count = len(scores[0])
    bias = [0.0] * count
    for _ in range(iterations):
        mean = [0.0] * count
        for row in scores:
            z = [s - b for s, b in zip(row, bias)]
            top = max(z)
            p = [math.exp(x - top) for x in z]
            total = sum(p)
            mean = [m + x / total / len(scores) for m, x in zip(mean, p)]
        bias = [b + math.log(max(m, 1e-300) * count) for b, m in zip(bias, mean)]
    return bias


def probabilities(row):
    """The softmax of a row of log-scores; a value not scored (-inf) gets 0."""
    top = max(row)
    weights = [math.exp(x - top) if x > -math.inf else 0.0 for x in row]
    total = sum(weights) or 1.0
    return [w / total for w in weights]


def words(text):
    return re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())


def neighbours_mixed(job, calibration, scores, calibration_scores, k, weight, earlier_only):
    """Each text's calibrated probabilities mixed with those of its k most similar other texts (BM25 over words,
    idf from the job's texts, weighted by similarity): the neighbours' with `weight`, its own with 1 - weight.
    The neighbours are every other text of the job, or with `earlier_only` the calibration texts and the texts
    before it, as a job that has read its file could have them while it writes its answers in order."""
    documents = [collections.Counter(words(entry["text"])) for entry in job]
    frequency = collections.Counter(word for document in documents for word in document)
    idf = {word: math.log((len(documents) - n + 0.5) / (n + 0.5) + 1) for word, n in frequency.items()}
    mean_length = sum(sum(document.values()) for document in documents) / len(documents)

    def bm25(query, counts):
        scale = 1.2 * (0.25 + 0.75 * sum(counts.values()) / mean_length)
        return sum(idf[word] * counts[word] * 2.2 / (counts[word] + scale) for word in query if word in counts)

    own = [probabilities(row) for row in scores]
    sampled = [(collections.Counter(words(entry["text"])), probabilities(row), entry["text"])
               for entry, row in zip(calibration, calibration_scores)]
    mixed, before = [], set()
    for i, entry in enumerate(job):
        if earlier_only:
            before.add(entry["text"])
            pool = [(documents[j], own[j]) for j in range(i)] + [(d, p) for d, p, text in sampled if text not in before]
        else:
            pool = [(documents[j], own[j]) for j in range(len(job)) if j != i]
        nearest = sorted(((bm25(documents[i], d), p) for d, p in pool), key=lambda pair: -pair[0])[:k]
        total = sum(similarity for similarity, _ in nearest) or 1.0
        mixed.append([(1 - weight) * own[i][c] + weight * sum(s * p[c] for s, p in nearest) / total
                      for c in range(len(own[i]))])
    return mixed


def argmax(row):
    return max(range(len(row)), key=lambda j: row[j])


def names(values):
    return [json.loads(v) if v.startswith('"') else v for v in values]


def correct(decisions, values, job, gold):
    """How many decisions name one of their text's gold labels."""
    chosen = [names(values)[d] for d in decisions]
    return sum(c in gold[entry["text"]] for c, entry in zip(chosen, job))


def evaluate(decisions, values, job, gold):
    chosen = [names(values)[d] for d in decisions]
    truth = [gold[entry["text"]] for entry in job]
    right = correct(decisions, values, job, gold)
    if multi_label:
        precision = right / len(chosen)
        recall = right / sum(len(t) for t in truth)
        f1 = 2 * precision * recall / (precision + recall) if right else 0.0
        return f"P {100 * precision:.1f} R {100 * recall:.1f} F1 {100 * f1:.1f}"
    f1s = []
    for name in names(values):
        tp = sum(c == name and name in t for c, t in zip(chosen, truth))
        fp = sum(c == name and name not in t for c, t in zip(chosen, truth))
        fn = sum(c != name and name in t for c, t in zip(chosen, truth))
        if tp + fp + fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    return f"{100 * right / len(chosen):.1f} / {100 * sum(f1s) / len(f1s):.1f}"


parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("labelled", help="the labelled JSONL file the job ran on")
parser.add_argument("log", help="standard error of the job, run with FM_LOG_CHOICES=1")
arguments = parser.parse_args()

gold, multi_label = {}, False
with open(arguments.labelled) as labelled:
    for line in labelled:
        record = json.loads(line)
        value = record.get("label", record.get("labels"))
        multi_label = multi_label or isinstance(value, list)
        gold[record["text"]] = set(value) if isinstance(value, list) else {value}

calibration, job = read_log(arguments.log)
job = [entry for entry in job if entry["text"] in gold]
if not job or not calibration:
    sys.exit(f"{arguments.log}: no logged choices of both calibration and job texts (run with FM_LOG_CHOICES=1)")
values = sorted({c["value"] for entry in job + calibration for c in entry["candidates"]})
scores = totals(matrix(job, values))
prior_rows = matrix(calibration, values)
prior = token_prior(prior_rows)
prior_totals = totals(prior_rows)
whole = [log_mean_exp([row[j] for row in prior_totals]) for j in range(len(values))]
calibrated = subtract(scores, prior)

rows = [
    ("the engine's prior: mean probability per token over the calibration texts", calibrated),
    ("no prior", scores),
    ("half the prior (FM_CALIBRATION_WEIGHT=0.5)", subtract(scores, prior, 0.5)),
    ("prior of the whole value", subtract(scores, whole)),
    ("balanced over the calibration texts (iterated until their mean probabilities are equal)",
     subtract(scores, balancing_bias(prior_totals))),
    ("balanced over the job's own texts", subtract(scores, balancing_bias(scores))),
    ("the engine's prior, then balanced over the job's texts", subtract(calibrated, balancing_bias(calibrated))),
]
calibrated_samples = subtract(prior_totals, prior)
for k, weight, earlier_only in [(5, 0.35, False), (10, 0.35, False), (5, 0.35, True)]:
    which = "the calibration texts and the earlier texts" if earlier_only else "every other text of the job"
    rows.append((f"the engine's prior, mixed with the {k} most similar of {which} (weight {weight})",
                 neighbours_mixed(job, calibration, calibrated, calibrated_samples, k, weight, earlier_only)))
if len(values) == 2:
    # Every prior of a two-value choice is one shift of the log-odds: the best shift, found with the gold labels in
    # hand, is the ceiling of any calibration on this prompt.
    odds = [row[1] - row[0] for row in scores]
    shifts = [-math.inf] + sorted(o for o in odds if math.isfinite(o))
    best = max(shifts, key=lambda shift: correct([int(o > shift) for o in odds], values, job, gold))
    rows.append((f"the best shift of the log-odds, chosen with the gold labels (a ceiling for any prior): {best:.2f}",
                 [[0.0, 1.0 if o > best else -1.0] for o in odds]))
print(f"{len(job)} texts, {len(calibration)} calibration texts, {len(values)} values")
for name, decided in rows:
    print(f"{evaluate([argmax(row) for row in decided], values, job, gold):>24}  {name}")
