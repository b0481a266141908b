#!/usr/bin/python3
"""Send a group's RoCEv2 packets from the source host and check who got them.

  deliver.py --fabric tools/lab/out/fabric.json --source h1 --group 239.77.0.1 --count 20 \
             --members h3,h5,h8

Captures at every host of the fabric (opened before sending), sends --count packets with
unique PSNs from the source, waits until the copies settle, then prints two JSON lines:
  1. per host: {"h1": {"role": "source", "received": 0, "distinct": 0, "duplicates": 0, ...}, ...}
  2. summary:  {"receivers": R, "delivered": D, "duplicates": X, "strays": S, ...}
delivered = members that got every sent PSN exactly once with a valid ICRC; duplicates =
extra copies at members; strays = copies at non-members (the source included).
Hosts may be named h3, m4h3, by IP, MAC or ONOS host id (MAC/None).
Exit code 0 whatever the delivery result (the caller judges); 2 if it cannot run.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402
import roce  # noqa: E402
import sender  # noqa: E402


def judge(results, sent_psns, source, members):
    """Annotate per-host results and compute the summary."""
    sent = set(sent_psns)
    delivered = duplicates = strays = 0
    for name, r in results.items():
        role = "source" if name == source else "member" if name in members else "other"
        r["role"] = role
        if role == "member":
            dup = r["duplicates"]
            got = r["_psns"]
            r["missing"] = len(sent - got)
            r["unexpected"] = len(got - sent)
            ok = (r["missing"] == 0 and r["unexpected"] == 0 and dup == 0
                  and r["received"] == len(sent) and r["icrcErrors"] == 0
                  and r["decodeErrors"] == 0)
            r["ok"] = ok
            delivered += ok
            duplicates += dup
        else:
            strays += r["received"]
            r["ok"] = r["received"] == 0
        del r["_psns"]
    return {"receivers": len(members), "delivered": delivered,
            "duplicates": duplicates, "strays": strays}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fabric", default="tools/lab/out/fabric.json")
    ap.add_argument("--source", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--members", required=True, help="comma-separated receivers")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--qpn", type=lambda v: int(v, 0), default=0x12)
    ap.add_argument("--psn-start", type=lambda v: int(v, 0), default=None)
    ap.add_argument("--opcode", choices=("ud", "rc"), default="ud")
    ap.add_argument("--gap-us", type=int, default=200)
    ap.add_argument("--settle", type=float, default=0.25,
                    help="seconds without a new copy before the count is final")
    ap.add_argument("--timeout", type=float, default=3.0,
                    help="longest wait after the last packet is sent")
    ap.add_argument("--pretty", action="store_true", help="indented JSON")
    ap.add_argument("--src-mac", default=None,
                    help="Ethernet source to send with (a BITMAP receiver subset); default the host's")
    ap.add_argument("--v2-bits", default=None,
                    help="comma-separated bit indices: the sender writes a version 2 header naming them (P4)")
    a = ap.parse_args()
    try:
        fabric = capture.load_fabric(a.fabric)
        src = capture.resolve_host(fabric, a.source)
        members = [capture.resolve_host(fabric, r)["name"] for r in a.members.split(",") if r.strip()]
        if len(set(members)) != len(members):
            raise ValueError("duplicate host in --members")
        if src["name"] in members:
            raise ValueError("the source %s is listed as a member" % src["name"])
        roce.preload()
        cap = capture.Capture(fabric["hosts"], a.group)
    except (OSError, ValueError, LookupError, KeyError) as e:
        print("deliver: %s" % e, file=sys.stderr)
        return 2
    try:
        return run(a, fabric, src, members, cap)
    except ValueError as e:
        print("deliver: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("deliver: %s (was the lab torn down meanwhile?)" % e, file=sys.stderr)
        return 2


def run(a, fabric, src, members, cap):
    """Send, capture until the copies settle, print the two JSON lines."""
    t0 = time.monotonic()
    with cap:
        sent = sender.send(src["ns"], src["iface"], a.group, a.count, a.qpn, a.psn_start,
                           a.opcode, a.gap_us, src_ip=src["ip"], src_mac=a.src_mac,
                           v2_header=None if a.v2_bits is None else sender.v2_hosts(
                               [int(b) for b in a.v2_bits.split(",") if b.strip()], 0x55))
        t_sent = time.monotonic()
        want = set(sent["psns"])
        deadline = t_sent + a.timeout
        while True:
            now = time.monotonic()
            cap.poll(0.02)
            done = all(set(cap.hosts[m].psns) >= want for m in members)
            quiet = now - max(cap.last_seen(), t_sent) >= a.settle
            if (done and quiet) or now >= deadline:
                break
        cap.poll(0)
        results = cap.results()
        for name, hc in cap.hosts.items():
            results[name]["_psns"] = set(hc.psns)
    results = capture.ordered(results, fabric)
    summary = judge(results, sent["psns"], src["name"], set(members))
    summary.update({"count": a.count, "psnStart": sent["psnStart"], "qpn": a.qpn,
                    "group": a.group, "source": src["name"],
                    "seconds": round(time.monotonic() - t0, 3)})
    indent = 2 if a.pretty else None
    print(json.dumps(results, indent=indent))
    print(json.dumps(summary, indent=indent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
