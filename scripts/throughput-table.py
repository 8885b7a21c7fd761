#!/usr/bin/env python3
"""The table of `scripts/throughput.sh`: ours against llama-server per model, with the ratios (ours / anchor).

Usage: throughput-table.py WORK "MODELS" PARALLEL ROUNDS, reading WORK/round-N/ for N in 1...ROUNDS.
"""
import datetime
import json
import os
import platform
import sys

from commit_stamp import commit_stamp


def canonical(text):
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return text


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def peak_rss(path):
    """A server's peak RSS in bytes, as the script wrote it (older runs wrote floats such as 2.6073e+09)."""
    return int(float(open(path).read().strip() or 0))



def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def ratio(values):
    """A ratio's median over the rounds, with its range when there was more than one round."""
    if len(values) == 1:
        return f"{values[0]:.2f}×"
    return f"{median(values):.2f}× (rounds {min(values):.2f}–{max(values):.2f})"


def load_round(work, model, parallel):
    return {
        "ours": json.load(open(f"{work}/{model}-ours.json")),
        "one": json.load(open(f"{work}/{model}-anchor-1.json")),
        "many": json.load(open(f"{work}/{model}-anchor-{parallel}.json")),
        "anchor_rss": peak_rss(f"{work}/{model}-anchor.rss"),
        "serve_one": json.load(open(f"{work}/{model}-serve-1.json")),
        "serve_many": json.load(open(f"{work}/{model}-serve-{parallel}.json")),
        "serve_rss": peak_rss(f"{work}/{model}-serve.rss"),
    }


def main():
    work, models, parallel = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
    rounds = int(sys.argv[4])
    # The code and the texts; the output file, benchmarks/RESULTS.md, is outside these paths.
    commit = commit_stamp(["Sources", "Package.swift", "scripts", "Makefile", "benchmarks/tagging-texts.txt"])
    lines = [
        "# Throughput against llama-server, same run",
        "",
        f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores ({cpu_model()}), commit {commit}.",
        "Written by `make bench` (`scripts/throughput.sh`). Both sides tag the same texts from",
        "`benchmarks/tagging-texts.txt` with the content-tagging schema, greedy, from the same GGUF file; the anchor",
        "is llama.cpp's own `llama-server` built from the same pinned source, sent the exact chat messages our executor",
        "renders, with `response_format: json_schema` (strict) and `cache_prompt`, on a server with one slot per client.",
        "The `fm serve` rows replay the same requests on our server through the same client (scripts/throughput-anchor.py).",
        f"Every setup ran once in each of {rounds} round{'s' if rounds != 1 else ''} (ours, the anchor, `fm serve`, in turn); each figure is its",
        "median over the rounds, peak memory the largest. Ratios are ours / anchor within a round, then the median over",
        "the rounds with their range: above 1 is better for throughput, below 1 is better for latency and memory.",
        "",
        "| model | texts | setup | texts/s | median latency (s) | peak RSS (MiB) | errors |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    summary = []
    for model in models:
        runs = [load_round(f"{work}/round-{r}", model, parallel) for r in range(1, rounds + 1)]
        first = runs[0]
        mib = lambda value: f"{value / 2**20:.0f}"
        med = lambda setup, key: median([run[setup][key] for run in runs])
        errors = lambda setup: sum(run[setup]["errors"] for run in runs)
        cut = lambda setup: sum(run[setup].get("cut", 0) for run in runs)
        anchor_rss = max(run["anchor_rss"] for run in runs)
        serve_rss = max(run["serve_rss"] for run in runs)
        ours_rss = max(run["ours"]["peak_rss_bytes"] for run in runs)
        n = first["ours"]["texts"]
        lines += [
            f"| {model} | {n} | llama-server, 1 client | {med('one', 'texts_per_second'):.2f} | {med('one', 'median_latency_seconds'):.3f} | {mib(anchor_rss)} | {errors('one')} |",
            f"| {model} | {n} | llama-server, {parallel} clients on -np {parallel} | {med('many', 'texts_per_second'):.2f} | {med('many', 'median_latency_seconds'):.3f} | | {errors('many')} |",
            f"| {model} | {n} | ours, one at a time | {med('ours', 'sequential_texts_per_second'):.2f} | {med('ours', 'median_latency_seconds'):.3f} | {mib(ours_rss)} | |",
            f"| {model} | {n} | ours, --parallel {parallel} | {med('ours', 'parallel_texts_per_second'):.2f} | | | {errors('ours')} |",
            f"| {model} | {n} | fm serve, 1 client | {med('serve_one', 'texts_per_second'):.2f} | {med('serve_one', 'median_latency_seconds'):.3f} | {mib(serve_rss)} | {errors('serve_one')} |",
            f"| {model} | {n} | fm serve, {parallel} clients | {med('serve_many', 'texts_per_second'):.2f} | {med('serve_many', 'median_latency_seconds'):.3f} | | {errors('serve_many')} |",
        ]
        ours, one = first["ours"], first["one"]
        agree = sum(canonical(a) == canonical(b) for a, b in zip(ours["results"], one["results"]))
        flips = sum(canonical(a) != canonical(b) for a, b in zip(ours["results"], ours["parallel_results"]))
        best = lambda run: max(run["one"]["texts_per_second"], run["many"]["texts_per_second"])
        per_round = lambda f: [f(run) for run in runs]
        summary.append(
            f"- **{model}**: batch throughput {ratio(per_round(lambda r: r['ours']['parallel_texts_per_second'] / best(r)))} the anchor's best "
            f"(target ≥ 1.5×); one text at a time {ratio(per_round(lambda r: r['ours']['sequential_texts_per_second'] / r['one']['texts_per_second']))}; "
            f"single-text latency {ratio(per_round(lambda r: r['ours']['median_latency_seconds'] / r['one']['median_latency_seconds']))} (target ≤ 0.75×); "
            f"peak memory {ours_rss / anchor_rss if anchor_rss else float('nan'):.2f}×. "
            f"Answers identical to the anchor's (first round): {agree} of {n}; ours one at a time against ours in a batch: {flips} differ.")
        serve_agree = sum(canonical(a) == canonical(b) for a, b in zip(first["serve_one"]["results"], one["results"]))
        summary.append(
            f"- **{model}, server against server** (the same requests from the same client): `fm serve` with {parallel} clients "
            f"{ratio(per_round(lambda r: r['serve_many']['texts_per_second'] / r['many']['texts_per_second']))} llama-server with {parallel} clients "
            f"and {ratio(per_round(lambda r: r['serve_many']['texts_per_second'] / best(r)))} its best (target ≥ 1.5×); one client "
            f"{ratio(per_round(lambda r: r['serve_one']['texts_per_second'] / r['one']['texts_per_second']))}, median latency "
            f"{ratio(per_round(lambda r: r['serve_one']['median_latency_seconds'] / r['one']['median_latency_seconds']))}; peak memory "
            f"{serve_rss / anchor_rss if anchor_rss else float('nan'):.2f}×. Answers identical to llama-server's: {serve_agree} of {n}.")
        if any(cut(setup) for setup in ("one", "many", "serve_one", "serve_many")):
            # Kept with their time, so a runaway slows that side's figures: say how often it happened.
            summary.append(
                f"- **{model}, answers cut at the 512-token limit** (kept, with the time they took), over all rounds: "
                f"llama-server {cut('one')} with 1 client and {cut('many')} with {parallel}; `fm serve` {cut('serve_one')} "
                f"and {cut('serve_many')}.")
    lines += ["", *summary, ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
