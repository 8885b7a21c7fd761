#!/usr/bin/env python3
"""How often an answer changes when a schema lists its choices in another order.

    scripts/choice-order-flips.py ../shared/eval/dev/spam_sms.jsonl [--model medium] [--limit N]

Prints the schema `fm eval` evaluates the labelled file under, writes copies of it whose enumerations list their
values reversed and shuffled (a fixed seed), and tags the file's texts under each with `fm tag --schema … --no-cache`,
one process per order, so every run starts from the same state. Then it prints, for each other order, how many
texts got another result than under the declared order. The prompt, the label glossary and the candidates'
scoring order are all canonical, so the expected count is zero.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def reorder(node, arrange):
    """The schema with every `enum` list rearranged by `arrange`."""
    if isinstance(node, dict):
        out = {key: reorder(value, arrange) for key, value in node.items()}
        if isinstance(node.get("enum"), list):
            out["enum"] = arrange(list(node["enum"]))
        return out
    if isinstance(node, list):
        return [reorder(value, arrange) for value in node]
    return node


def tag(fm, model, schema_path, texts_path):
    """Each text's result as compact JSON (or its error), by id."""
    run = subprocess.run([fm, "tag", "--model", model, "--schema", schema_path, "--file", texts_path, "--no-cache"],
                         capture_output=True, text=True)
    # 2: every text has its line, some of them errors (kept below); anything else stopped the job.
    if run.returncode not in (0, 2):
        raise subprocess.CalledProcessError(run.returncode, run.args, run.stdout, run.stderr)
    results = {}
    for line in run.stdout.splitlines():
        record = json.loads(line)
        results[record["id"]] = json.dumps(record.get("result", record.get("error")), sort_keys=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--model", default="medium")
    parser.add_argument("--fm", default=".build/release/fm")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        limit = ["--limit", str(args.limit)] if args.limit else []
        printed = subprocess.run([args.fm, "eval", args.file, "--print-schema", *limit],
                                 capture_output=True, text=True, check=True).stdout
        schema = json.loads(printed)
        texts_path = os.path.join(work, "texts.jsonl")
        with open(args.file) as source, open(texts_path, "w") as texts:
            for index, line in enumerate(source):
                if args.limit and index >= args.limit:
                    break
                record = json.loads(line)
                texts.write(json.dumps({"id": record.get("id", str(index)), "text": record["text"]}) + "\n")
        rng = random.Random(args.seed)

        def shuffled(values):
            rng.shuffle(values)
            return values

        orders = {"declared": lambda values: values, "reversed": lambda values: values[::-1], "shuffled": shuffled}
        results = {}
        for name, arrange in orders.items():
            path = os.path.join(work, f"{name}.json")
            with open(path, "w") as out:
                json.dump(reorder(schema, arrange), out)
            print(f"[order] {name}", file=sys.stderr)
            results[name] = tag(args.fm, args.model, path, texts_path)

    base = results["declared"]
    name = os.path.basename(args.file)
    for order in ("reversed", "shuffled"):
        flips = sum(1 for key, value in base.items() if results[order].get(key) != value)
        print(f"{name}\t{args.model}\t{order}\t{flips} of {len(base)} results differ from the declared order")


if __name__ == "__main__":
    main()
