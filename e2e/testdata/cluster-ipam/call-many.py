#!/usr/bin/env python3
"""Start CNI calls of one plugin at once and time each from its own exec.

call-many.py PLUGIN CONFFILE NETNS CMD:CONTAINERID...
Prints one line per call, in the order given:
  CMD CONTAINERID EXIT ELAPSED_MS CNI_CODE
(CNI_CODE "-" when stdout is not a CNI error). Measured here, not around
`ip netns exec`, so that the number is the plugin's own wall time.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    plugin, conf_file, netns = sys.argv[1:4]
    calls = {}
    for n, spec in enumerate(sys.argv[4:]):
        cmd, cid = spec.split(":", 1)
        env = dict(os.environ, CNI_COMMAND=cmd, CNI_CONTAINERID=cid, CNI_NETNS=netns,
                   CNI_IFNAME="eth0", CNI_PATH=os.path.dirname(plugin))
        out = tempfile.TemporaryFile()
        with open(conf_file, "rb") as conf:
            start = time.monotonic()
            p = subprocess.Popen([plugin], stdin=conf, stdout=out,
                                 stderr=subprocess.DEVNULL, env=env)
        calls[p.pid] = [n, cmd, cid, start, out, None, None, p]
    left = len(calls)
    while left:  # polled every 2 ms: os.wait() would race Popen's own reaping
        for c in calls.values():
            if c[5] is None and c[7].poll() is not None:
                c[5], c[6] = time.monotonic(), c[7].returncode
                left -= 1
        time.sleep(0.002)
    for n, cmd, cid, start, out, end, rc, _ in sorted(calls.values(), key=lambda c: c[0]):
        out.seek(0)
        try:
            code = json.loads(out.read()).get("code", "-")
        except ValueError:
            code = "-"
        print(f"{cmd} {cid} {rc} {(end - start) * 1000:.0f} {code}")


main()
