#!/usr/bin/python3
"""Faults on the P4 lab: a BITMAP group carries a numbered stream while a link or a switch fails, then comes back.

  p4faults.py --fabric tools/lab/out/fabric.json --rest http://127.0.0.1:8181/onos/mcast4ai [--results FILE]

Run by tools/lab/faults --p4 with a P4 lab and its runner up. One group from the first host to one host of
every other leaf and the other hosts of its own leaf. Per scenario: a stream of numbered RoCEv2 packets from the
source (100 a second) during which the fault is made, in which what the receivers the fault does not concern lose
is counted as spared loss (a spine link's cut concerns the receiver behind it, a source uplink's or a spine's the
remote ones, a controller restart nobody; one restart happens while a link is down); then, once the group has
settled, a check that every receiver the fabric still reaches gets every packet once (and that the group lists
the others); then the repair during a second stream, which the receivers reached all along must get whole while
the link or switch (empty) comes back and is taken into use again (the P4 fabric's status says when), and the
same check. Per receiver it records what the streams lost, duplicates, strays (copies at hosts outside the
group) and the longest gap in its stream (the reroute time). Ends with one line `faults: switches=p4
scenarios=S passed=P duplicates=D strays=T silent=Q max_reroute_ms=M max_rejoin_ms=J spared_loss=L`,
silent counting the checks where the group said INSTALLED while a receiver missed packets, J the longest time
from a link's or switch's return to its use by the others, L the packets the fault streams lost at receivers
their fault does not concern.
"""

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "traffic"))
import capture  # noqa: E402
import roce  # noqa: E402
import sender  # noqa: E402
import treecheck  # noqa: E402

AUTH = "Basic " + base64.b64encode(b"onos:rocks").decode()
# 100 packets/s: what the lab's BMv2 switches (about 700 tables a pass, a few hundred passes a second) forward
# without loss of their own, so what a stream loses is the fault's
GAP_US = 10000
STREAM = 400
# long enough (12 s) to cover a switch's restart, its state written and acknowledged, and the others taking it
# back
REPAIR_STREAM = 480
TIERS = ["LEAF", "SPINE", "SUPER_SPINE"]
REPAIR_GAP_US = 25000


def rest(base, method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": AUTH, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            data = r.read()
            return r.status, json.loads(data) if data else None
    except urllib.error.HTTPError as e:
        return e.code, None


def fabric_cmd(fabric_file, *args):
    p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "p4fabric.py")] + list(args)
                       + ["--fabric", fabric_file], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("p4fabric %s: %s" % (" ".join(args), p.stderr.strip()))


def in_place(base, switch, deadline_s=120):
    """Waits until the P4 fabric's static state is in place with `switch` in it: listed, acknowledged, and used by
    the others (not joining). Returns the seconds it took, or None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        code, st = rest(base, "GET", "/p4-fabric")
        if code == 200 and st["problem"] is None and not st["unacknowledged"] and not st["joining"] \
                and any(s.endswith(":" + switch) or s == switch for s in st["switches"]):
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def settled(base, gid, deadline_s=60):
    """Waits until the group is INSTALLED or DEGRADED for a second (its reconcile done); returns it."""
    t_end = time.monotonic() + deadline_s
    last, since = None, time.monotonic()
    while time.monotonic() < t_end:
        code, g = rest(base, "GET", "/groups/%d" % gid)
        key = (g["state"], g.get("version"), tuple(sorted(u["host"] for u in g.get("unreachable", [])))) if g else None
        if key != last:
            last, since = key, time.monotonic()
        elif g and g["state"] in ("INSTALLED", "DEGRADED") and time.monotonic() - since >= 1.0:
            return g
        time.sleep(0.1)
    return g


def stream(fabric, src, group, members, count, gap_us, during=None):
    """Sends `count` numbered packets; `during` runs a third of the way in. Per host: received PSNs."""
    with capture.Capture(fabric["hosts"], group) as cap:
        result = {}

        def send():
            result["sent"] = sender.send(src["ns"], src["iface"], group, count, 0x12, None, "ud", gap_us,
                                         src_ip=src["ip"])
        t = threading.Thread(target=send)
        t.start()
        d = None
        if during:
            # beside the capture, which keeps reading while the fault (or the repair) takes its time
            def fault():
                time.sleep(count * gap_us / 1e6 / 3)
                during()
            d = threading.Thread(target=fault)
            d.start()
        while t.is_alive() or (d and d.is_alive()):
            cap.poll(0.02)
        t.join()
        t_end = time.monotonic() + 1.0
        while time.monotonic() < t_end:
            cap.poll(0.05)
        sent = result["sent"]["psns"]
        index = {p: i for i, p in enumerate(sent)}
        out = {}
        for name, hc in cap.hosts.items():
            got = [index[p] for p in hc.psns if p in index]
            distinct = sorted(set(got))
            gap = 0
            prev = -1
            for i in distinct + [count]:
                gap = max(gap, i - prev - 1)
                prev = i
            out[name] = {"received": len(got), "distinct": len(distinct), "duplicates": len(got) - len(distinct),
                         "missing": count - len(distinct), "gapMs": round(gap * gap_us / 1000.0, 1),
                         "member": name in members}
        return out


def judge(name, phase, res, members, reachable, group_state):
    """One check: the reachable members got everything once, nobody else anything."""
    dup = sum(r["duplicates"] for r in res.values())
    strays = sum(r["received"] for n, r in res.items() if n not in members)
    missing = {n: res[n]["missing"] for n in members if n in reachable and res[n]["missing"]}
    ok = dup == 0 and strays == 0 and not missing
    silent = group_state == "INSTALLED" and bool(missing)
    print("faults: %-29s %-8s %s duplicates=%d strays=%d missing=%s state=%s" % (
        name, phase, "ok  " if ok else "FAIL", dup, strays, json.dumps(missing), group_state), flush=True)
    return ok, dup, strays, silent


class Runner:
    """The lab runner (the controller): started, and restarted with its store kept, by the faults."""

    def __init__(self, cmd, log):
        self.cmd, self.log, self.p = cmd, log, None

    def start(self):
        f = open(self.log, "a")
        self.p = subprocess.Popen(self.cmd, stdout=f, stderr=subprocess.STDOUT)
        t_end = time.monotonic() + 120
        while time.monotonic() < t_end:
            with open(self.log) as g:
                if g.read().count("lab-runner: ready") > self.ready:
                    self.ready += 1
                    return
            if self.p.poll() is not None:
                raise RuntimeError("the lab runner exited (see %s)" % self.log)
            time.sleep(0.1)
        raise RuntimeError("the lab runner was not ready in 120 s")

    ready = 0

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()

    def restart(self):
        self.stop()
        self.start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--rest", required=True)
    ap.add_argument("--runner", required=True, help="the lab runner's command (with --state, so a restart keeps "
                                                     "the groups)")
    ap.add_argument("--runner-log", required=True)
    ap.add_argument("--results", default=None)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--no-links", action="store_true", help="switches and the controller only, no link cuts")
    ap.add_argument("--gap-ms", type=float, default=GAP_US / 1000.0,
                    help="between the fault streams' packets (a k=4 fat tree of BMv2 switches keeps 50 a second)")
    ap.add_argument("--only", default="", help="the scenarios whose name contains this text, or one of several "
                                                "comma-separated texts")
    a = ap.parse_args()
    runner = Runner(a.runner.split(), a.runner_log)
    # a runner left behind would go on writing to the next lab's switches
    signal.signal(signal.SIGTERM, lambda *x: sys.exit(143))
    runner.start()
    try:
        return run(a, runner)
    finally:
        runner.stop()


def run(a, runner):
    fabric = capture.load_fabric(a.fabric)
    with open(a.fabric) as f:
        desc = json.load(f)
    roce.preload()
    hosts = fabric["hosts"]
    src = hosts[0]
    by_leaf = {}
    for h in hosts:
        by_leaf.setdefault(h["deviceId"], []).append(h)
    members = [h["name"] for h in by_leaf[src["deviceId"]][1:]]
    for dev, hs in by_leaf.items():
        if dev != src["deviceId"]:
            members.append(hs[0]["name"])
    ip = {h["name"]: h["ip"] for h in hosts}
    code, g = rest(a.rest, "POST", "/groups", {
        "tenant": "faults", "name": "p4-faults", "jobId": "faults", "source": {"host": src["ip"]},
        "receivers": [{"host": ip[m]} for m in members], "mode": "BITMAP"})
    if code not in (200, 201):
        print("faults: POST /groups -> %s" % code, file=sys.stderr)
        return 2
    gid, group = g["id"], g["address"]
    g = settled(a.rest, gid, 240)
    print("faults: group %d %s to %d receivers: %s" % (gid, group, len(members), g["state"]), flush=True)
    leaf = {h["name"]: h["deviceId"].split(":")[-1] for h in hosts}
    r_leaf = leaf[members[-1]]
    s_leaf = leaf[src["name"]]
    remote = {m for m in members if leaf[m] != s_leaf}
    behind = {m for m in members if leaf[m] == r_leaf}
    cut = lambda *ends: lambda: fabric_cmd(a.fabric, "fail-link", *ends)  # noqa: E731
    # the fault targets from the fabric's tiers: a leaf-spine's spines, or a fat tree's aggregation switches
    # (a leaf's uplinks) and cores (the top)
    names = {sw["deviceId"]: sw["name"] for sw in fabric["switches"]}
    role = {sw["name"]: sw.get("role", "LEAF") for sw in fabric["switches"]}
    up = {}
    for ln in fabric["links"]:
        x, y = names[ln["a"]], names[ln["b"]]
        for lo, hi in ((x, y), (y, x)):
            if TIERS.index(role[hi]) > TIERS.index(role[lo]):
                up.setdefault(lo, []).append(hi)
    for v in up.values():
        v.sort()
    top = sorted(n for n in role if role[n] == max(role.values(), key=TIERS.index))[0]
    r_up, s_up = up[r_leaf], up[s_leaf]

    # (name, fault, repair, the receiver it leaves unreachable, the receivers it may cost packets while the fabric
    # reroutes (what others lose is spared loss), what is done and settled before the fault's stream)
    # a link cut: both ports drop every frame and say they are down (BMv2 stalls when one of its interfaces goes
    # down, which no switch does)
    links = [
        ("spine link", cut(r_leaf, r_up[0]), ("restore-link", r_leaf, r_up[0]), None, behind, None),
        ("source leaf uplink", cut(s_leaf, s_up[0]), ("restore-link", s_leaf, s_up[0]), None, remote, None),
        # ONOS restarted while a link is down: its first plan must not use the link
        ("controller restart, link down", runner.restart, ("restore-link", r_leaf, r_up[-1]), None, set(),
         cut(r_leaf, r_up[-1])),
    ] if not a.no_links else []
    scenarios = links + [
        ("spine switch", ("fail-switch", top), ("restore-switch", top), None, remote, None),
    ]
    if top not in r_up:
        # a fat tree: the receiver leaf's aggregation switch too
        scenarios.append(("aggregation switch", ("fail-switch", r_up[0]), ("restore-switch", r_up[0]), None,
                          remote, None))
    scenarios += [
        ("receiver leaf switch", ("fail-switch", r_leaf), ("restore-switch", r_leaf), members[-1], behind, None),
        ("controller restart", runner.restart, None, None, set(), None),
    ]
    if a.only:
        texts = [t.strip() for t in a.only.split(",") if t.strip()]
        scenarios = [s for s in scenarios if any(t in s[0] for t in texts)]
        if not scenarios:
            print("faults: no scenario's name contains %s" % a.only, file=sys.stderr)
            return 2
    report = []
    passed = dups = strays = silent = 0
    max_gap = 0.0
    rejoin = 0.0
    checks = 0
    spared_lost = 0
    for name, fail, repair, lost, exposed, before in scenarios:
        everyone = set(members)
        reachable = everyone - ({lost} if lost else set())
        if before:
            before()
            settled(a.rest, gid)
            in_place(a.rest, s_leaf)
        res = stream(fabric, src, group, everyone, STREAM, int(a.gap_ms * 1000),
                     fail if callable(fail) else lambda: fabric_cmd(a.fabric, *fail))
        during_dup = sum(r["duplicates"] for r in res.values())
        during_strays = sum(r["received"] for n, r in res.items() if n not in everyone)
        gap = max(res[m]["gapMs"] for m in reachable)
        max_gap = max(max_gap, gap)
        # what the receivers the fault does not concern lost while it happened
        spared = {m: res[m]["missing"] for m in members if m not in exposed and res[m]["missing"]}
        spared_lost += sum(spared.values())
        print("faults: %-29s stream   loss=%s spared_loss=%d duplicates=%d strays=%d longest_gap_ms=%.1f" % (
            name, json.dumps({m: res[m]["missing"] for m in members if res[m]["missing"]}),
            sum(spared.values()), during_dup, during_strays, gap), flush=True)
        g = settled(a.rest, gid)
        # with the fault in place: the tree the service reports (GET /groups/{id}/tree) is where the packets go,
        # by the switches' own port counters
        counted = treecheck.counts(desc)
        after = stream(fabric, src, group, everyone, a.count, 2000)
        ok1, d1, s1, q1 = judge(name, "failed", after, everyone, reachable, g["state"])
        code_t, tree = rest(a.rest, "GET", "/groups/%d/tree" % gid)
        lines = []
        tree_ok = code_t == 200 and treecheck.compare(desc, tree, counted, a.count, lines.append) == 0
        for line in (lines[-1:] if tree_ok else lines or ["tree: GET -> %s" % code_t]):
            print("faults: %-29s %s" % (name, line), flush=True)
        ok1 = ok1 and tree_ok
        unreach = {u["host"] for u in g.get("unreachable", [])}
        listed = (not lost) or ip[lost] in unreach
        if not listed:
            print("faults: %-29s the group does not list %s as unreachable" % (name, lost), flush=True)
        ok3, mending = True, None
        if repair:
            # the repair during a stream: the receivers the fabric reached all along must lose nothing while the
            # switch comes back (with empty tables) and is taken into use again
            took = {}

            def mend():
                fabric_cmd(a.fabric, *repair)
                # a switch back is taken into use once it answered (a link's ends held their state all along)
                if repair[0] == "restore-link":
                    # a link back is seen on the lab runner's next reading of the lab (every 200 ms)
                    time.sleep(0.6)
                took["s"] = in_place(a.rest, repair[1])
            mending = stream(fabric, src, group, everyone, REPAIR_STREAM, REPAIR_GAP_US, mend)
            ok3, d3, s3, _ = judge(name, "repair", mending, everyone, reachable, "INSTALLED")
            if took.get("s") is None:
                print("faults: %-29s the P4 static state was not in place with %s again within 120 s"
                      % (name, repair[1]), flush=True)
                ok3 = False
            else:
                rejoin = max(rejoin, took["s"])
                print("faults: %-29s %s in use again %.2f s after it came back" % (
                    name, " ".join(repair[1:]), took["s"] + (0.6 if repair[0] == "restore-link" else 0)), flush=True)
            dups += d3
            strays += s3
        g2 = settled(a.rest, gid, 120)
        back = stream(fabric, src, group, everyone, a.count, 2000)
        ok2, d2, s2, q2 = judge(name, "repaired", back, everyone, everyone, g2["state"])
        ok = ok1 and ok2 and ok3 and listed and during_dup == 0 and during_strays == 0 and g2["state"] == "INSTALLED"
        passed += ok
        dups += during_dup + d1 + d2
        strays += during_strays + s1 + s2
        silent += q1 + q2
        checks += 1
        report.append({"scenario": name, "stream": res, "failed": after, "repair": mending, "repaired": back,
                       "passed": ok, "stateFailed": g["state"], "stateRepaired": g2["state"], "sparedLoss": spared})
    rest(a.rest, "DELETE", "/groups/%d" % gid)
    if a.results:
        with open(a.results, "w") as f:
            json.dump(report, f, indent=1)
    print("faults: switches=p4 scenarios=%d passed=%d duplicates=%d strays=%d silent=%d max_reroute_ms=%d "
          "max_rejoin_ms=%d spared_loss=%d" % (checks, passed, dups, strays, silent, round(max_gap),
                                               round(rejoin * 1000), spared_lost))
    return 0 if passed == checks and dups == 0 and strays == 0 and silent == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
