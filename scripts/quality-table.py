#!/usr/bin/env python3
"""Turns the per-file reports of scripts/quality.sh into one Markdown table."""
import datetime
import glob
import json
import os
import platform
import sys

from commit_stamp import commit_stamp

work, models, data, limit = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
shots = int(sys.argv[5]) if len(sys.argv) > 5 else 0
team = sys.argv[6] if len(sys.argv) > 6 else ""
label_key = sys.argv[7] if len(sys.argv) > 7 else ""


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def seconds(path):
    try:
        return float(open(path).read().strip())
    except (OSError, ValueError):
        return None


def summary(report):
    """The headline numbers: accuracy / macro-F1 per field, or tag P/R/F1; and constant fields."""
    if report is None:
        return "—", []
    parts, constant = [], []
    for field in report.get("fields", []):
        parts.append(f"{field['field']} {100 * field['accuracy']:.1f} / {100 * field['macroF1']:.1f}")
        predicted = {guess for row in field["confusion"].values() for guess in row}
        if len(predicted) <= 1:
            constant.append(field["field"])
    if report.get("set"):
        s = report["set"]
        parts.append(f"P {100 * s['precision']:.1f} R {100 * s['recall']:.1f} F1 {100 * s['f1']:.1f}")
    if report.get("failures"):
        parts.append(f"{report['failures']} failed")
    return "; ".join(parts), constant



# The code and the team's texts; the output files, benchmarks/quality*.md, are outside these paths.
commit = commit_stamp(["Sources", "Package.swift", "scripts", "Makefile", "benchmarks/team"])
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.machine())
print("# Answer quality: ours against the same model under llama-server\n")
print(f"{datetime.date.today().isoformat()} · commit {commit} · {os.cpu_count()} cores, {cpu} · "
      f"greedy · examples per file: {limit} · data: `{data}`\n")
if label_key:
    print(f"The data files are scored on their `{label_key}` field (`fm eval --label-key {label_key}`, on both sides); "
          "files without it were left out.\n")
if shots:
    print(f"Ours gets {shots} few-shot examples per text: the most similar labelled records (BM25) of the same file, "
          "never the text itself (`fm eval FILE --examples FILE --shots K`, leave-one-out). The anchor stays "
          "zero-shot.\n")
print("Each cell: accuracy / macro-F1 per field (%), or tag precision / recall / F1; then wall seconds for the file. "
      "The anchor is llama.cpp's `llama-server` from the same source, `response_format: json_schema` with the same "
      "schema, one request per text, greedy.\n")
print("| file | model | ours | s | anchor | s |")
print("|---|---|---|---|---|---|")
notes = []
files = sorted(glob.glob(os.path.join(data, "*.jsonl")))
if team:
    files += sorted(glob.glob(os.path.join(team, "*.jsonl")))
for path in files:
    name = os.path.basename(path)[:-6]
    for model in models:
        ours, constant = summary(load(f"{work}/{model}-{name}-ours.json"))
        anchor, _ = summary(load(f"{work}/{model}-{name}-anchor.json"))
        ours_s = seconds(f"{work}/{model}-{name}-ours.seconds")
        anchor_s = seconds(f"{work}/{model}-{name}-anchor.seconds")
        fmt = lambda value: "—" if value is None else f"{value:.0f}"
        is_team = team and os.path.dirname(path) == team
        # A data file that scripts/quality.sh left out for want of the label key has no row.
        if label_key and load(f"{work}/{model}-{name}-ours.json") is None \
                and not os.path.exists(f"{work}/{model}-{name}-ours.seconds"):
            continue
        shown = f"{name} (team, `--preset {name}`)" if is_team else (f"{name} (`{label_key}`)" if label_key else name)
        print(f"| {shown} | {model} | {ours} | {fmt(ours_s)} | {anchor} | {fmt(anchor_s)} |")
        if constant:
            notes.append(f"{model} on {name}: constant prediction in {', '.join(constant)}")
if notes:
    print("\nFields that predicted one constant value: " + "; ".join(notes) + ".")
