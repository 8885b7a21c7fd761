#!/usr/bin/env python3
"""The table of `scripts/throughput.sh`: ours against llama-server per model, with the ratios (ours / anchor)."""
import datetime
import json
import os
import platform
import subprocess
import sys


def canonical(text):
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except ValueError:
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


def main():
    work, models, parallel = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    # The output file itself is already truncated by `tee` when this runs; it is not a local change.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/RESULTS.md"],
                           capture_output=True, text=True).stdout.strip()
    lines = [
        "# Throughput against llama-server, same run",
        "",
        f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores ({cpu_model()}), commit {commit}{' with local changes' if dirty else ''}.",
        "Written by `make bench` (`scripts/throughput.sh`). Both sides tag the same texts from",
        "`benchmarks/tagging-texts.txt` with the content-tagging schema, greedy, from the same GGUF file; the anchor",
        "is llama.cpp's own `llama-server` built from the same pinned source, sent the exact chat messages our executor",
        "renders, with `response_format: json_schema` (strict) and `cache_prompt`, on a server with one slot per client.",
        "The `fm serve` rows replay the same requests on our server through the same client (scripts/throughput-anchor.py).",
        "Ratios are ours / anchor: above 1 is better for throughput, below 1 is better for latency and memory.",
        "",
        "| model | texts | setup | texts/s | median latency (s) | peak RSS (MiB) | errors |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    summary = []
    for model in models:
        ours = json.load(open(f"{work}/{model}-ours.json"))
        one = json.load(open(f"{work}/{model}-anchor-1.json"))
        many = json.load(open(f"{work}/{model}-anchor-{parallel}.json"))
        anchor_rss = peak_rss(f"{work}/{model}-anchor.rss")
        serve_one = json.load(open(f"{work}/{model}-serve-1.json"))
        serve_many = json.load(open(f"{work}/{model}-serve-{parallel}.json"))
        serve_rss = peak_rss(f"{work}/{model}-serve.rss")
        mib = lambda value: f"{value / 2**20:.0f}"
        n = ours["texts"]
        lines += [
            f"| {model} | {n} | llama-server, 1 client | {one['texts_per_second']:.2f} | {one['median_latency_seconds']:.3f} | {mib(anchor_rss)} | {one['errors']} |",
            f"| {model} | {n} | llama-server, {parallel} clients on -np {parallel} | {many['texts_per_second']:.2f} | {many['median_latency_seconds']:.3f} | | {many['errors']} |",
            f"| {model} | {n} | ours, one at a time | {ours['sequential_texts_per_second']:.2f} | {ours['median_latency_seconds']:.3f} | {mib(ours['peak_rss_bytes'])} | |",
            f"| {model} | {n} | ours, --parallel {parallel} | {ours['parallel_texts_per_second']:.2f} | | | {ours['errors']} |",
            f"| {model} | {n} | fm serve, 1 client | {serve_one['texts_per_second']:.2f} | {serve_one['median_latency_seconds']:.3f} | {mib(serve_rss)} | {serve_one['errors']} |",
            f"| {model} | {n} | fm serve, {parallel} clients | {serve_many['texts_per_second']:.2f} | {serve_many['median_latency_seconds']:.3f} | | {serve_many['errors']} |",
        ]
        agree = sum(canonical(a) == canonical(b) for a, b in zip(ours["results"], one["results"]))
        flips = sum(canonical(a) != canonical(b) for a, b in zip(ours["results"], ours["parallel_results"]))
        best_anchor = max(one["texts_per_second"], many["texts_per_second"])
        summary.append(
            f"- **{model}**: batch throughput {ours['parallel_texts_per_second'] / best_anchor:.2f}× the anchor's best "
            f"(target ≥ 1.5×); one text at a time {ours['sequential_texts_per_second'] / one['texts_per_second']:.2f}×; "
            f"single-text latency {ours['median_latency_seconds'] / one['median_latency_seconds']:.2f}× (target ≤ 0.75×); "
            f"peak memory {ours['peak_rss_bytes'] / anchor_rss if anchor_rss else float('nan'):.2f}×. "
            f"Answers identical to the anchor's: {agree} of {n}; ours one at a time against ours in a batch: {flips} differ.")
        serve_agree = sum(canonical(a) == canonical(b) for a, b in zip(serve_one["results"], one["results"]))
        summary.append(
            f"- **{model}, server against server** (the same requests from the same client): `fm serve` with {parallel} clients "
            f"{serve_many['texts_per_second'] / many['texts_per_second']:.2f}× llama-server with {parallel} clients "
            f"and {serve_many['texts_per_second'] / best_anchor:.2f}× its best (target ≥ 1.5×); one client "
            f"{serve_one['texts_per_second'] / one['texts_per_second']:.2f}×, median latency "
            f"{serve_one['median_latency_seconds'] / one['median_latency_seconds']:.2f}×; peak memory "
            f"{serve_rss / anchor_rss if anchor_rss else float('nan'):.2f}×. Answers identical to llama-server's: {serve_agree} of {n}.")
    lines += ["", *summary, ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
