#!/usr/bin/env python3
"""Validates JSON instances against JSON Schemas with the reference `jsonschema` package.

Input (stdin): one JSON object per line, {"schema": …, "instance": …}.
Output (stdout): one JSON object per line, {"valid": true} or {"valid": false, "error": "…"}.

The validator follows each schema's "$schema" (2020-12 when absent) and asserts formats (the dialect's format checker),
so a generated "date" or "email" must really be one. Used by the tests and by benchmarks/schemas.
"""
import json
import sys

import jsonschema
from jsonschema.validators import validator_for


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        schema, instance = item["schema"], item["instance"]
        try:
            cls = validator_for(schema, default=jsonschema.Draft202012Validator)
            # The dialect's own format checker (the global one mixes drafts: its "time" is draft 3's).
            validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
            error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
            result = {"valid": error is None}
            if error is not None:
                result["error"] = f"{'/'.join(map(str, error.absolute_path))}: {error.message}"[:300]
        except Exception as exc:  # a schema the validator itself cannot use
            result = {"valid": False, "error": f"validator: {type(exc).__name__}: {exc}"[:300]}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
