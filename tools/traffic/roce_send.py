#!/usr/bin/python3
"""Send N RoCEv2 packets (UDP 4791, BTH with unique PSNs, valid ICRC) to a multicast group
from inside a lab namespace.

  roce_send.py --ns m4h1 --iface eth0 --group 239.77.0.1 --count 20 --qpn 0x12 [--psn-start P]

Prints one JSON line: {"sent": N, "psnStart": P, "psnEnd": .., "qpn": Q, "srcIp": .., ...}.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sender  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns", required=True, help="network namespace, e.g. m4h1")
    ap.add_argument("--iface", default="eth0")
    ap.add_argument("--group", required=True, help="IPv4 multicast group address")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--qpn", type=lambda v: int(v, 0), default=0x12, help="destination QP (24 bits)")
    ap.add_argument("--psn-start", type=lambda v: int(v, 0), default=None, help="first PSN (random if unset)")
    ap.add_argument("--opcode", choices=("ud", "rc"), default="ud",
                    help="ud: UD SEND only 0x64 with DETH (default); rc: RC SEND only 0x04")
    ap.add_argument("--gap-us", type=int, default=200, help="pause between packets")
    ap.add_argument("--payload-size", type=int, default=64)
    ap.add_argument("--src-ip", default=None, help="source IPv4 (default: the interface's)")
    ap.add_argument("--src-mac", default=None,
                    help="Ethernet source (default: the interface's); a BITMAP sender stamps its subset here")
    a = ap.parse_args()
    try:
        out = sender.send(a.ns, a.iface, a.group, a.count, a.qpn, a.psn_start, a.opcode,
                          a.gap_us, a.payload_size, a.src_ip, a.src_mac)
    except (OSError, ValueError, LookupError) as e:
        print("roce_send: %s" % e, file=sys.stderr)
        return 2
    psns = out.pop("psns")
    out["psnEnd"] = psns[-1]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
