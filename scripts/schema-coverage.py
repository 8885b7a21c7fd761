#!/usr/bin/env python3
"""Real-world JSON Schema coverage of `fm tag --schema`: imported, refused (and why), generated-and-valid.

    python3 scripts/schema-coverage.py --fm .build/release/fm [--schemas benchmarks/schemas/real-world]
        [--markdown benchmarks/schemas.md] [--records .build/schema-coverage.jsonl] [--resume]

For every *.json under --schemas (its first-level folder names the source; manifest.json is skipped), with
FM_THREADS=1 (one core):

 1. import: `fm tag --schema FILE --model tiny --greedy --no-cache --file EMPTY` — with no texts fm imports the
    schema and exits before loading the model (a fraction of a second): exit 0 = imported, exit 64 with
    "The schema file … cannot be used: <message> at <path>." = refused;
 2. generation (unless --import-only): `fm tag --schema FILE --model tiny --greedy --no-cache "<a neutral text>"`
    with a per-schema timeout (default 60 s).

Each schema gets one outcome:

  refused         refused at import; `keyword` is the one the message names (the quoted keyword, else the
                  last segment of the path), `reason` the message with its specifics blanked
  valid           a "result" came back and validates against the schema
  invalid         a "result" came back and does NOT validate: a bug (the importer accepted the schema, so the
                  constrained decoder must only produce instances of it)
  gen-error       fm answered with an "error" record (e.g. generation-failed: the context window ran out)
  timeout         no answer within --timeout seconds (fm's process group is killed)
  fm-error        any other failure, at import (`stage: import`: a crash, not a refusal) or in generation
  validator-error the reference validator itself cannot use the schema (not counted as invalid)
  imported        with --import-only: imported, generation not run

"imported" counts every schema step 1 accepted. Warnings fm prints at import (ignored annotations and unknown
keywords, formats it does not enforce) are recorded per schema.

The validator is the one of scripts/json-schema-validate.py: the `jsonschema` package, the dialect the schema's
"$schema" names (2020-12 when absent), asserting formats with that dialect's FORMAT_CHECKER.

Per-schema records go to --records (JSONL); with --resume, schemas already recorded there (same file) are not run
again, so an interrupted run continues. The summary is printed and written as markdown to --markdown.
"""
import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import jsonschema
from jsonschema.validators import validator_for

TEXT = "The delivery arrived on Tuesday morning and the package was intact."
OUTCOMES = ["valid", "invalid", "gen-error", "timeout", "fm-error", "validator-error", "imported", "refused"]
REFUSAL = re.compile(r"The schema file .* cannot be used: (?P<message>.*?) at (?P<path>#[^\s]*)\.?\s*$", re.M)
QUOTED_KEYWORD = re.compile(r'"(\$?[A-Za-z][A-Za-z0-9]*)"')


def refusal_keyword(message, path):
    """The JSON Schema keyword a refusal is about."""
    m = re.search(r'Unsupported JSON Schema keyword "([^"]+)"', message)
    if m:
        return m.group(1)
    if message.startswith("The schema cannot be enforced"):
        return "(automaton size)"
    if message.startswith("The pattern "):
        return "pattern"
    if message.startswith("Unsupported or undefined reference") or "\"$ref\"" in message:
        return "$ref"
    if message.startswith("Unsupported type") or "\"type\"" in message:
        return "type"
    m = QUOTED_KEYWORD.search(message)
    if m:
        return m.group(1)
    segment = path.rstrip("/").split("/")[-1]
    return segment if segment not in ("", "#") else "(whole schema)"


def reason_template(message):
    """The refusal message with its specifics (quoted values, numbers) blanked, to group like refusals."""
    m = re.search(r'Unsupported JSON Schema keyword "([^"]+)"', message)
    if m:
        return message
    text = re.sub(r"pattern /.*/ ", "pattern /…/ ", message)
    text = re.sub(r'"[^"]*"', '"…"', text)
    return re.sub(r"\b\d+(\.\d+)?\b", "N", text)


def validate(schema, instance):
    """None when valid, else the validator's message; raises ValueError when the validator cannot use the schema."""
    try:
        cls = validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    except Exception as exc:  # a schema the validator itself cannot use (remote $ref, broken regex, …)
        raise ValueError(f"{type(exc).__name__}: {exc}"[:300]) from exc
    if error is None:
        return None
    return f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"[:500]


def launch(cmd, env, timeout):
    """(returncode, stdout, stderr), or None on timeout (the child's process group is killed)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # our own child's process group only
        proc.communicate()
        return None
    return proc.returncode, out, err


def run_one(fm, path, schema, args):
    env = dict(os.environ, FM_THREADS=str(args.threads))
    base = [fm, "tag", "--schema", path, "--model", args.model, "--greedy", "--no-cache"]
    rec = {}
    # 1. Import only: with an empty --file fm imports the schema and exits before loading the model.
    started = time.monotonic()
    done = launch(base + ["--file", args.empty_file], env, 30)
    if done is None:
        rec.update(outcome="fm-error", stage="import", seconds=round(time.monotonic() - started, 1),
                   stderr="import did not finish within 30 s")
        return rec
    code, out, err = done
    warnings = [line.split(": ", 2)[-1] for line in err.splitlines() if line.startswith("warning:")]
    if warnings:
        rec["warnings"] = warnings
    if code != 0:
        rec["seconds"] = round(time.monotonic() - started, 1)
        m = REFUSAL.search(err)
        if m:
            message, where = m.group("message"), m.group("path").rstrip(".")
            rec.update(outcome="refused", keyword=refusal_keyword(message, where), message=message, at=where,
                       reason=reason_template(message))
        else:
            rec.update(outcome="fm-error", stage="import", exit=code, stderr=err.strip()[-500:])
        return rec
    rec["imported"] = True
    if args.import_only:
        rec.update(outcome="imported", seconds=round(time.monotonic() - started, 1))
        return rec
    # 2. Generation for one text.
    started = time.monotonic()
    done = launch(base + [args.text], env, args.timeout)
    rec["seconds"] = round(time.monotonic() - started, 1)
    if done is None:
        rec["outcome"] = "timeout"
        return rec
    code, out, err = done
    # 2: the text has its line, an error line (read below).
    if code not in (0, 2):
        rec.update(outcome="fm-error", stage="generation", exit=code, stderr=err.strip()[-500:])
        return rec
    lines = [line for line in out.splitlines() if line.strip()]
    try:
        record = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        rec.update(outcome="fm-error", stage="generation", exit=0, stdout=out[-500:], stderr=err.strip()[-300:])
        return rec
    if "error" in record:
        rec.update(outcome="gen-error", code=record["error"].get("code"), message=record["error"].get("message"))
        return rec
    if "result" not in record:
        rec.update(outcome="fm-error", stage="generation", exit=0, stdout=lines[-1][:500])
        return rec
    rec["output"] = record["result"]
    try:
        problem = validate(schema, record["result"])
    except ValueError as exc:
        rec.update(outcome="validator-error", error=str(exc))
        return rec
    if problem is None:
        rec["outcome"] = "valid"
    else:
        rec.update(outcome="invalid", error=problem)
    return rec


def pct(n, total):
    return f"{100.0 * n / total:.1f} %" if total else "–"


def summarize(records, args):
    by_source = collections.defaultdict(list)
    for r in records:
        by_source[r["source"]].append(r)
    lines = []
    total = len(records)
    counts = collections.Counter(r["outcome"] for r in records)
    imported = sum(1 for r in records if r.get("imported"))
    lines.append(f"# Real-world JSON Schema coverage of `fm tag --schema`\n")
    mode = " --import-only (an empty --file: import, no generation)" if args.import_only else ""
    lines.append(f"Generated by `scripts/schema-coverage.py{mode}` over `{args.schemas}` ({total} schemas) with "
                 f"`fm tag --schema FILE --model {args.model} --greedy --no-cache` (FM_THREADS={args.threads}, "
                 f"timeout {args.timeout:g} s per schema, text: \"{args.text}\"). Validity is checked "
                 f"independently with the `jsonschema` package (the schema's dialect, formats asserted).\n")
    if args.note:
        lines.append(args.note + "\n")
    lines.append("## Summary\n")
    lines.append("| | schemas | share |")
    lines.append("|---|---:|---:|")
    lines.append(f"| total | {total} | |")
    lines.append(f"| **imported** | {imported} | **{pct(imported, total)}** |")
    lines.append(f"| refused at import | {counts['refused']} | {pct(counts['refused'], total)} |")
    if counts["imported"]:
        lines.append(f"| imported, generation not run (--import-only) | {counts['imported']} | "
                     f"{pct(counts['imported'], total)} |")
    lines.append(f"| generated and valid | {counts['valid']} | {pct(counts['valid'], total)} |")
    lines.append(f"| **generated but invalid (must be 0)** | {counts['invalid']} | {pct(counts['invalid'], total)} |")
    lines.append(f"| generation error (fm error record) | {counts['gen-error']} | {pct(counts['gen-error'], total)} |")
    lines.append(f"| timeout (> {args.timeout:g} s) | {counts['timeout']} | {pct(counts['timeout'], total)} |")
    crashed = sum(1 for r in records if r["outcome"] == "fm-error" and r.get("stage") == "import")
    lines.append(f"| fm failed at import (crash, not a refusal) | {crashed} | {pct(crashed, total)} |")
    lines.append(f"| fm failed during generation | {counts['fm-error'] - crashed} | "
                 f"{pct(counts['fm-error'] - crashed, total)} |")
    lines.append(f"| validator cannot use the schema | {counts['validator-error']} | "
                 f"{pct(counts['validator-error'], total)} |")
    lines.append("")
    lines.append("## Per source\n")
    lines.append("| source | total | imported | refused | valid | invalid | gen-error | timeout | fm-error | validator-error |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for source in sorted(by_source):
        rs = by_source[source]
        c = collections.Counter(r["outcome"] for r in rs)
        n = len(rs)
        k = sum(1 for r in rs if r.get("imported"))
        lines.append(f"| {source} | {n} | {k} ({pct(k, n)}) | {c['refused']} | "
                     f"{c['valid']} | {c['invalid']} | {c['gen-error']} | {c['timeout']} | {c['fm-error']} | "
                     f"{c['validator-error']} |")
    lines.append("")
    refused = [r for r in records if r["outcome"] == "refused"]
    lines.append("## Refusals by keyword\n")
    lines.append("| keyword | schemas | sources | example |")
    lines.append("|---|---:|---|---|")
    by_keyword = collections.defaultdict(list)
    for r in refused:
        by_keyword[r["keyword"]].append(r)
    for keyword, rs in sorted(by_keyword.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        sources = collections.Counter(r["source"] for r in rs)
        src = ", ".join(f"{s} {n}" for s, n in sorted(sources.items(), key=lambda kv: -kv[1]))
        ex = rs[0]
        lines.append(f"| `{keyword}` | {len(rs)} | {src} | {ex['file']}: {ex['message']} at `{ex['at']}` |")
    lines.append("")
    lines.append("## Refusal messages\n")
    lines.append("| message (specifics blanked) | schemas |")
    lines.append("|---|---:|")
    for reason, n in collections.Counter(r["reason"] for r in refused).most_common():
        escaped = reason.replace("|", "\\|")
        lines.append(f"| {escaped} | {n} |")
    lines.append("")
    warned = collections.Counter()
    for r in records:
        for w in r.get("warnings", []):
            m = re.search(r"keywords: (.*?)\.?$", w)
            f = re.search(r"^Formats not enforced.*?: (.*?)\.?$", w)
            if m:
                keys = m.group(1).split(", ")
            elif f:
                keys = [f"format {x}" for x in f.group(1).split(", ")]
            else:
                keys = [w]
            for k in keys:
                warned[k] += 1
    if warned:
        lines.append("## Warnings at import (ignored annotations and unknown keywords, unenforced formats)\n")
        lines.append("Schemas whose import printed each; the schema was still imported.\n")
        lines.append(", ".join(f"`{k}` {n}" for k, n in warned.most_common()) + "\n")
    problems = [r for r in records if r["outcome"] in ("invalid", "gen-error", "timeout", "fm-error", "validator-error")]
    if problems:
        lines.append("## Not generated-and-valid (besides refusals)\n")
        lines.append("| schema | outcome | seconds | detail |")
        lines.append("|---|---|---:|---|")
        for r in sorted(problems, key=lambda r: (OUTCOMES.index(r["outcome"]), r["file"])):
            detail = r.get("error") or r.get("message") or r.get("stderr") or r.get("stdout") or ""
            if r["outcome"] == "fm-error":
                detail = f"{r.get('stage')}: exit {r.get('exit')} {detail}".strip()
            if r["outcome"] == "invalid":
                detail = f"{detail}; output: {json.dumps(r.get('output'), ensure_ascii=False)[:300]}"
            if r["outcome"] == "timeout":
                detail = "killed after the timeout"
            detail = detail.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {r['file']} | {r['outcome']} | {r['seconds']} | {detail} |")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fm", default=".build/release/fm", help="the fm binary (default .build/release/fm)")
    ap.add_argument("--schemas", default="benchmarks/schemas/real-world", help="folder of <source>/<name>.json")
    ap.add_argument("--markdown", default="benchmarks/schemas.md", help="where the markdown summary goes")
    ap.add_argument("--records", default=".build/schema-coverage.jsonl", help="per-schema JSONL records")
    ap.add_argument("--resume", action="store_true", help="skip schemas already in --records")
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per schema (default 60)")
    ap.add_argument("--threads", type=int, default=1, help="FM_THREADS for fm (default 1)")
    ap.add_argument("--text", default=TEXT, help="the text each schema is applied to")
    ap.add_argument("--only", default=None, help="only schemas whose path contains this string")
    ap.add_argument("--note", default="", help="a paragraph for the markdown (machine, load, fm commit)")
    ap.add_argument("--import-only", action="store_true",
                    help="only check whether fm imports each schema (no generation, no model load)")
    args = ap.parse_args()
    empty = tempfile.NamedTemporaryFile(prefix="schema-coverage-", suffix=".txt", delete=False)
    empty.close()
    args.empty_file = empty.name

    fm = os.path.abspath(args.fm)
    files = []
    for root, _, names in os.walk(args.schemas):
        for name in names:
            if name.endswith(".json") and name != "manifest.json":
                files.append(os.path.relpath(os.path.join(root, name), args.schemas))
    files.sort()
    if args.only:
        files = [f for f in files if args.only in f]
    # Round-robin over the sources, so that an interrupted run (see --resume) has covered them evenly.
    by_source = collections.defaultdict(list)
    for f in files:
        by_source[f.split(os.sep)[0]].append(f)
    queues = [by_source[k] for k in sorted(by_source)]
    run_order = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
    if not files:
        sys.exit(f"no schemas under {args.schemas}")

    done = {}
    if args.resume and os.path.exists(args.records):
        with open(args.records, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    done[r["file"]] = r
    os.makedirs(os.path.dirname(os.path.abspath(args.records)), exist_ok=True)
    mode = "a" if args.resume else "w"
    with open(args.records, mode, encoding="utf-8") as out:
        for i, rel in enumerate(run_order, 1):
            if rel in done:
                continue
            path = os.path.join(args.schemas, rel)
            with open(path, encoding="utf-8") as f:
                schema = json.load(f)
            rec = {"file": rel, "source": rel.split(os.sep)[0] if os.sep in rel else "(top)"}
            rec.update(run_one(fm, path, schema, args))
            done[rel] = rec
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            print(f"[{i}/{len(files)}] {rel}: {rec['outcome']} {rec.get('keyword', '')} ({rec['seconds']} s)",
                  file=sys.stderr, flush=True)
    records = [done[f] for f in files if f in done]
    text = summarize(records, args)
    print(text)
    if args.markdown:
        os.makedirs(os.path.dirname(os.path.abspath(args.markdown)), exist_ok=True)
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    os.unlink(args.empty_file)
    return 1 if any(r["outcome"] == "invalid" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
