#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Validate podwire-inspect --json output against tools/podwire-inspect/schema.json.

Usage: schemacheck.py SCHEMA FILE   (exit 0 valid, 1 invalid)
       schemacheck.py SCHEMA --self-test
"""
import json
import sys

import jsonschema


def check(schema, doc):
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(doc)


def self_test(schema):
    good = {"schema": "podwire-inspect/v1", "attachments": [], "errors": [], "leaks": [],
            "lostVfs": []}
    check(schema, good)
    bads = [
        dict(good, schema="v0"),
        dict(good, extra=1),
        dict(good, attachments=[{"containerId": "c"}]),
        dict(good, leaks=[{"kind": "x", "object": "o", "reason": "r", "containerId": None,
                           "ifname": None, "network": None}]),
        dict(good, lostVfs=[{"pci": "0000:3b:00.4"}]),
    ]
    for b in bads:
        try:
            check(schema, b)
        except jsonschema.ValidationError:
            continue
        print("schemacheck self-test: accepted %r" % b)
        return 1
    return 0


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    if sys.argv[2] == "--self-test":
        return self_test(schema)
    with open(sys.argv[2], encoding="utf-8") as f:
        doc = json.load(f)
    try:
        check(schema, doc)
    except jsonschema.ValidationError as e:
        print("schemacheck: %s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
