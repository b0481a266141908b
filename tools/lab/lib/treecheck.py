#!/usr/bin/env python3
"""Checks a group's reported tree against where real packets go, on the Open vSwitch or the BMv2 lab.

    treecheck.py counts --fabric F > before.json
        every switch-to-switch port's sent-packet counter ("bridge/port": n): Open vSwitch's port statistics,
        or, on the BMv2 lab (a fabric with "p4": true), the kernel's counter of the switch's veth
    treecheck.py compare --fabric F --tree tree.json --before before.json --packets N
        after N packets of the group: the ports that sent at least N are the links that carried it; prints the
        tree (device, roles, ports, what it serves) and one line
        `tree: links=L carried=C match=yes|no`, exit 0 only on a match

tree.json is GET /groups/{id}/tree.
"""
import argparse
import json
import re
import subprocess
import sys

import topology

PORT = re.compile(r"port\s+(\d+): rx pkts=\d+.*?tx pkts=(\d+)", re.S)


def counts(desc):
    out = {}
    if desc.get("p4"):
        for ln in desc["links"]:
            for bridge, port in ((ln["aBridge"], ln["aPort"]), (ln["bBridge"], ln["bPort"])):
                iface = topology.patch_name(bridge, port)
                try:
                    with open("/sys/class/net/%s/statistics/tx_packets" % iface) as f:
                        out["%s/%d" % (bridge, port)] = int(f.read())
                except OSError:
                    pass  # a switch that is down: its ports send nothing
        return out
    for sw in desc["switches"]:
        r = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", sw["bridge"]], capture_output=True,
                           text=True)
        if r.returncode != 0:
            continue  # a bridge that is down
        for port, tx in PORT.findall(r.stdout):
            out["%s/%s" % (sw["bridge"], port)] = int(tx)
    return out


def compare(desc, tree, before, packets, out=print):
    bridge = {sw["deviceId"]: sw["bridge"] for sw in desc["switches"]}
    name = {sw["deviceId"]: sw["name"] for sw in desc["switches"]}
    want = sorted("%s/%d" % (bridge[ln["src"]["device"]], ln["src"]["port"]) for ln in tree["links"])
    now = counts(desc)
    links = set()
    for ln in desc["links"]:
        for b, p in ((ln["aBridge"], ln["aPort"]), (ln["bBridge"], ln["bPort"])):
            key = "%s/%d" % (b, p)
            links.add(key)
    carried = sorted(k for k in links if now.get(k, 0) - before.get(k, 0) >= packets)
    out("tree: %s, %s" % (tree["mode"], tree["carrier"]))
    for d in tree["devices"]:
        out("tree:   %-8s %-16s in=%s out=%s%s" % (name.get(d["deviceId"], d["deviceId"]), ",".join(d["roles"]),
                                                  d["inPort"], ",".join(str(p) for p in d["outPorts"]),
                                                  " serves: " + d["serves"] if d["serves"] else ""))
    if tree["unreachable"]:
        out("tree:   unreachable: %s" % ", ".join(tree["unreachable"]))
    ok = want == carried
    if not ok:
        out("tree:   reported links %s" % want)
        out("tree:   ports that sent the packets %s" % carried)
    out("tree: links=%d carried=%d match=%s" % (len(want), len(carried), "yes" if ok else "no"))
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(prog="treecheck")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("counts")
    c.add_argument("--fabric", required=True)
    m = sub.add_parser("compare")
    m.add_argument("--fabric", required=True)
    m.add_argument("--tree", required=True)
    m.add_argument("--before", required=True)
    m.add_argument("--packets", type=int, required=True)
    a = ap.parse_args(argv)
    with open(a.fabric) as f:
        desc = json.load(f)
    if a.cmd == "counts":
        json.dump(counts(desc), sys.stdout)
        return 0
    with open(a.tree) as f:
        tree = json.load(f)
    with open(a.before) as f:
        before = json.load(f)
    return compare(desc, tree, before, a.packets)


if __name__ == "__main__":
    sys.exit(main())
