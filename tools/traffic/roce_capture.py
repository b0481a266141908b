#!/usr/bin/python3
"""Capture a group's RoCEv2 packets at every lab host and count them per host.

  roce_capture.py --fabric tools/lab/out/fabric.json --group 239.77.0.1 [--hosts h1,h3] [--duration S]

Opens a packet socket in every host namespace, prints `roce_capture: ready` on stderr, and
captures until --duration elapses or it gets SIGINT/SIGTERM (or stdin closes with
--until-eof). Then prints one JSON line per run:
  {"h1": {"received": 10, "distinct": 10, "duplicates": 0, "icrcErrors": 0, ...}, ...}
Only IPv4 UDP-4791 frames to the group address are counted.
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402

_stop = False


def _on_signal(signum, frame):
    global _stop
    _stop = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fabric", default="tools/lab/out/fabric.json")
    ap.add_argument("--group", required=True)
    ap.add_argument("--hosts", default=None, help="comma-separated hosts (default: all)")
    ap.add_argument("--duration", type=float, default=None, help="seconds to capture")
    ap.add_argument("--until-eof", action="store_true", help="stop when stdin closes")
    ap.add_argument("--pretty", action="store_true")
    a = ap.parse_args()
    try:
        fabric = capture.load_fabric(a.fabric)
        hosts = ([capture.resolve_host(fabric, r) for r in a.hosts.split(",") if r.strip()]
                 if a.hosts else fabric["hosts"])
        cap = capture.Capture(hosts, a.group)
    except (OSError, ValueError, LookupError, KeyError) as e:
        print("roce_capture: %s" % e, file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    print("roce_capture: ready (%d hosts)" % len(hosts), file=sys.stderr, flush=True)
    deadline = None if a.duration is None else time.monotonic() + a.duration
    watch = [sys.stdin] if a.until_eof else []
    with cap:
        while not _stop and (deadline is None or time.monotonic() < deadline):
            cap.poll(0.05)
            if watch:
                import select
                r, _, _ = select.select(watch, [], [], 0)
                if r and not sys.stdin.read(1):
                    break
        cap.poll(0)
        res = capture.ordered(cap.results(), fabric)
    if a.pretty:
        import json
        print(json.dumps(res, indent=2))
    else:
        print(capture.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
