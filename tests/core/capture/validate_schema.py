#!/usr/bin/env python3
"""docs/capture-format.schema.json accepts every capture in tests/data/captures that is meant
to load, and refuses the bad captures whose damage is structural (a name outside an enum, a
repeated name in a set), so the published schema and the loader describe the same format.
Usage: validate_schema.py <schema> <tests/data/captures>. Exit 77 (skipped) without the
Python module jsonschema."""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("python3 jsonschema is not installed: skipped")
    sys.exit(77)

# Bad files the schema alone must refuse (the others need the loader's cross-checks).
STRUCTURALLY_BAD = [
    "unknown_stage_name", "repeated_access_name", "unknown_kernel_stage",
    "unknown_submission_sync", "specialization_of_three_bytes", "spirv_not_base64",
    "wrong_version", "unknown_field", "unknown_op", "workgroups_unknown_with_counts",
]

schema = json.loads(pathlib.Path(sys.argv[1]).read_text())
data = pathlib.Path(sys.argv[2])
validator = jsonschema.Draft202012Validator(schema)
failures = 0
for path in sorted(data.glob("*.json")):
    errors = list(validator.iter_errors(json.loads(path.read_text())))
    for e in errors[:3]:
        print(f"FAIL: {path.name}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    failures += bool(errors)
for name in STRUCTURALLY_BAD:
    if validator.is_valid(json.loads((data / "bad" / f"{name}.json").read_text())):
        print(f"FAIL: bad/{name}.json passes the schema")
        failures += 1
print(f"{failures} failure(s)" if failures else "every capture agrees with the schema")
sys.exit(1 if failures else 0)
