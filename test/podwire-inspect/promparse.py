#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A strict parser of the Prometheus text exposition format 0.0.4, written
from the format's specification (exposition_formats.md): used to validate
podwire-inspect --prometheus where promtool is not installed.

Checks: line grammar (metric and label names, quoted label values with only
the \\\\, \\" and \\n escapes, float values incl. NaN/+Inf/-Inf, optional
integer timestamp); at most one HELP and one TYPE per family, TYPE before
the family's first sample, known types; all samples of a family contiguous;
no duplicate label names in a sample; no duplicate series; counters' sample
names (our convention) end in _total.

Usage: promparse.py FILE   (exit 0 valid, 1 invalid with line number)
       promparse.py --self-test
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}
SUFFIXES = ("_bucket", "_sum", "_count")


class Bad(Exception):
    pass


def parse_value(s):
    if s in ("NaN", "+Inf", "-Inf"):
        return s
    if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", s):
        raise Bad("bad value %r" % s)
    return float(s)


def parse_labels(s, i):
    """s[i] == '{'; returns (labels dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        if i < len(s) and s[i] == "}":
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            raise Bad("bad label name at column %d" % (i + 1))
        name = m.group(0)
        i = m.end()
        if s[i:i + 2] != '="':
            raise Bad("expected =\" after label %s" % name)
        i += 2
        val = []
        while True:
            if i >= len(s):
                raise Bad("unterminated label value")
            c = s[i]
            if c == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    raise Bad("bad escape \\%s" % nxt)
                val.append("\n" if nxt == "n" else nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                raise Bad("newline in label value")
            else:
                val.append(c)
                i += 1
        if name in labels:
            raise Bad("duplicate label %s" % name)
        labels[name] = "".join(val)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == "}":
            continue
        else:
            raise Bad("expected , or } after label %s" % name)


def family_of(name, types):
    for suf in SUFFIXES:
        if name.endswith(suf) and name[: -len(suf)] in types:
            return name[: -len(suf)]
    return name


def parse(text):
    helps, types, seen_series = set(), {}, set()
    done_families, current = set(), None
    n_samples = 0
    for no, line in enumerate(text.split("\n"), 1):
        try:
            if not line.strip():
                continue
            if line.startswith("#"):
                parts = line.split(None, 3)
                if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                    name = parts[2]
                    if not NAME.fullmatch(name):
                        raise Bad("bad metric name %r" % name)
                    if parts[1] == "HELP":
                        if name in helps:
                            raise Bad("second HELP for %s" % name)
                        helps.add(name)
                    else:
                        if name in types:
                            raise Bad("second TYPE for %s" % name)
                        if name in done_families or name == current:
                            raise Bad("TYPE for %s after its samples" % name)
                        if len(parts) < 4 or parts[3].strip() not in TYPES:
                            raise Bad("bad type in %r" % line)
                        types[name] = parts[3].strip()
                continue
            m = NAME.match(line)
            if not m:
                raise Bad("bad metric name")
            name, i = m.group(0), m.end()
            labels = {}
            if i < len(line) and line[i] == "{":
                labels, i = parse_labels(line, i)
            rest = line[i:].split()
            if not line[i:i + 1].isspace() or len(rest) not in (1, 2):
                raise Bad("expected ' value [timestamp]'")
            parse_value(rest[0])
            if len(rest) == 2 and not re.fullmatch(r"-?\d+", rest[1]):
                raise Bad("bad timestamp %r" % rest[1])
            fam = family_of(name, types)
            if fam != current:
                if fam in done_families:
                    raise Bad("samples of %s are not contiguous" % fam)
                if current is not None:
                    done_families.add(current)
                current = fam
            if types.get(fam) == "counter" and not name.endswith("_total"):
                raise Bad("counter %s does not end in _total" % name)
            key = (name, tuple(sorted(labels.items())))
            if key in seen_series:
                raise Bad("duplicate series %s%s" % (name, labels))
            seen_series.add(key)
            n_samples += 1
        except Bad as e:
            raise Bad("line %d: %s: %s" % (no, e, line[:200]))
    return n_samples


GOOD = [
    '# HELP a_total x\n# TYPE a_total counter\na_total{x="1"} 3\na_total{x="2"} 4\n',
    '# TYPE g gauge\ng{p="a\\\\b\\"c\\nd"} -1.5e3\ng 1 1700000000000\n',
    "m NaN\nn +Inf\n",
]
BAD = [
    "1abc 3\n",                                   # bad name
    'a{x="1} 3\n',                                # unterminated
    'a{x="\\t"} 3\n',                             # bad escape
    'a{x="1",x="2"} 3\n',                         # duplicate label
    "a three\n",                                  # bad value
    "# TYPE a gauge\na 1\nb 1\na 2\n",            # not contiguous
    "a 1\n# TYPE a gauge\n",                      # TYPE after samples
    "# TYPE a gauge\n# TYPE a gauge\na 1\n",      # second TYPE
    "# TYPE a foo\na 1\n",                        # bad type
    'a{x="1"} 1\na{x="1"} 2\n',                   # duplicate series
    "# TYPE c counter\nc 1\n",                    # counter without _total
    'a{x="1"}3\n',                                # no space
]


def self_test():
    for t in GOOD:
        parse(t)
    for t in BAD:
        try:
            parse(t)
        except Bad:
            continue
        print("self-test: accepted invalid input %r" % t)
        return 1
    print("self-test: %d valid and %d invalid inputs judged right" % (len(GOOD), len(BAD)))
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    try:
        n = parse(text)
    except Bad as e:
        print("promparse: %s" % e)
        return 1
    if n == 0:
        print("promparse: no samples")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
