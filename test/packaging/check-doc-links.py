#!/usr/bin/env python3
"""Every relative link of the installed Markdown points at an installed file.

  check-doc-links.py DOCDIR   exit 1 naming each broken link (file: target)
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def broken_links(docdir):
    for root, _, files in os.walk(docdir):
        for name in files:
            if not name.endswith(".md"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in LINK.findall(text):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue  # a URL
                if not os.path.exists(os.path.join(root, target)):
                    yield f"{os.path.relpath(path, docdir)}: {target}"


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = list(broken_links(argv[1]))
    for b in bad:
        print(f"check-doc-links: broken link in {b}")
    n = sum(1 for _, _, fs in os.walk(argv[1]) for f in fs if f.endswith(".md"))
    print(f"check-doc-links: {n} files, {len(bad)} broken links")
    return 1 if bad or n == 0 else 0


sys.exit(main(sys.argv))
