"""Model and checkpoint distribution on the lab, side by side: mcast4ai-distribute over an mcast4ai group, uftp and
udpcast (Debian's) over an mcast4ai group, and unicast fan-out (the sender serving every receiver over HTTP at
once, as a model server does), each delivering the same file to N receivers with random loss on some receivers'
links (ebpf/loss.c on their switch ports: every IPv4 packet toward them, TCP as well as UDP).

For each run: completion time (start to the last receiver holding the file with the right SHA-256), sender bytes /
file size (what the sender's port received from it), fabric bytes / file size (the sum over every switch port
sent), repairs (mcast4ai-distribute's repair datagrams; uftp's and udpcast's own counts are not exported, their
excess shows in the sender bytes).

    distribute_lab.py --fabric F --rest URL [--tools mcast4ai,uftp,udpcast,unicast] [--sizes 2,8,16,32]
                      [--loss 0,1,5] [--lossy all] [--file-mb 64] [--rate 200] --results OUT.json
Needs root, the lab up with a runner serving REST (--unicast-routes), ebpf/target/loss.o and the client jar.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools", "traffic"))
import labrest  # noqa: E402
from loss import Loss  # noqa: E402
from topology import host_veth as veth  # noqa: E402

WORK = "/tmp/mcast4ai-distribute-lab"
PORT = 48400


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), capture_output=True, text=True, **kw)


def port_bytes(bridges):
    """Bytes sent by every port of every switch, from the datapath (OVSDB's statistics lag by seconds)."""
    total = 0
    for b in bridges:
        out = sh("ovs-ofctl", "-O", "OpenFlow13", "dump-ports", b).stdout
        for m in re.finditer(r"tx pkts=\d+, bytes=(\d+)", out):
            total += int(m.group(1))
    return total


def rx_bytes(iface):
    with open("/sys/class/net/%s/statistics/rx_bytes" % iface) as f:
        return int(f.read())


def sha(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for b in iter(lambda: f.read(1 << 20), b""):
                h.update(b)
    except OSError:
        return None
    return h.hexdigest()


def switch_drops():
    """The packets OVS's host ports dropped because their buffer was full: the drop counts of ovs-vswitchd's packet
    sockets (ss -0 -m), summed; None without ss."""
    try:
        out = subprocess.run(["ss", "-0", "-a", "-m", "-p"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    total, owner = 0, False
    for line in out.splitlines():
        if line.startswith("p_raw") or line.startswith("p_dgr"):
            owner = "ovs-vswitchd" in line
        m = re.search(r"skmem:\(.*\bd(\d+)\)", line)
        if owner and m:
            total += int(m.group(1))
    return total


class Lab:
    def __init__(self, a):
        self.a = a
        with open(a.fabric) as f:
            fab = json.load(f)
        self.hosts = fab["hosts"]
        self.bridges = [sw["bridge"] for sw in fab["switches"]]
        self.rest = labrest.Rest(a.rest, a.user, a.password)
        self.source = self.hosts[0]
        # receivers spread over the leaves: round robin over the switches
        by_leaf = {}
        for h in self.hosts[1:]:
            by_leaf.setdefault(h["deviceId"], []).append(h)
        order = []
        while any(by_leaf.values()):
            for d in sorted(by_leaf):
                if by_leaf[d]:
                    order.append(by_leaf[d].pop(0))
        self.order = order
        os.makedirs(WORK, exist_ok=True)
        self.file = os.path.join(WORK, "model.bin")
        size = a.file_mb << 20
        if not os.path.exists(self.file) or os.path.getsize(self.file) != size:
            rnd = random.Random(a.seed)
            with open(self.file, "wb") as f:
                for _ in range(a.file_mb):
                    f.write(rnd.randbytes(1 << 20))
        self.digest = sha(self.file)
        self.loss = Loss("/sys/fs/bpf/mcast4ai-lab-dloss")

    def group(self, name, receivers):
        code, g = self.rest.request("POST", "groups", {"tenant": "bench", "name": name, "source": self.source["ip"],
                                                     "receivers": [h["ip"] for h in receivers], "mode": "TREE"})
        if code != 201:
            raise RuntimeError("creating group %s: HTTP %d" % (name, code))
        for _ in range(200):
            code, g = self.rest.request("GET", "groups/%d" % g["id"])
            if g.get("state") == "INSTALLED":
                return g
            time.sleep(0.05)
        raise RuntimeError("group %s not INSTALLED" % name)

    def withdraw(self, gid):
        self.rest.purge(gid)

    def outdir(self, h):
        d = os.path.join(WORK, "rx", h["name"])
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def run(self, tool, n, loss):
        receivers = self.order[:n]
        lossy = (receivers if self.a.lossy < 0 else receivers[:min(self.a.lossy, n)]) if loss else []
        for h in lossy:
            self.loss.random(veth(h), int(loss * 10000))
        outs = {h["name"]: self.outdir(h) for h in receivers}
        before_tx, before_fabric = rx_bytes(veth(self.source)), port_bytes(self.bridges)
        before_drops = switch_drops()
        t0 = time.monotonic()
        try:
            extra = getattr(self, "run_" + tool)(receivers, outs, t0)
            extra["dropped"] = self.loss.dropped()
            # what the switches dropped themselves (their ports' buffers full), apart from the loss injected
            after_drops = switch_drops()
            if before_drops is not None and after_drops is not None:
                extra["switch_drops"] = after_drops - before_drops
        finally:
            self.loss.clear()
        elapsed = extra.pop("seconds")
        sent = rx_bytes(veth(self.source)) - before_tx
        fabric = port_bytes(self.bridges) - before_fabric
        size = os.path.getsize(self.file)
        verified = sum(1 for h in receivers if sha(os.path.join(outs[h["name"]], "model.bin")) == self.digest)
        row = dict(tool=tool, receivers=n, loss_pct=loss, lossy=len(lossy), seconds=round(elapsed, 2),
                   verified=verified, sender_ratio=round(sent / size, 3), fabric_ratio=round(fabric / size, 2),
                   **extra)
        print("distribute-lab: %-8s N=%-2d loss=%d%% on %d: %6.2f s verified %d/%d sender %.3fx fabric %.1fx %s"
              % (tool, n, loss, len(lossy), elapsed, verified, n, row["sender_ratio"], row["fabric_ratio"],
                 " ".join("%s=%s" % kv for kv in extra.items() if kv[0] != "trace")), flush=True)
        return row

    # ------------------------------------------------------------------ the tools
    def ns(self, h, *cmd):
        return ["ip", "netns", "exec", h["ns"]] + list(cmd)

    def run_mcast4ai(self, receivers, outs, t0):
        env = dict(os.environ, MCAST4AI_ONOS=self.a.rest, ONOS_WEB_USER=self.a.user, ONOS_WEB_PASS=self.a.password,
                   MCAST4AI_TENANT="bench", MCAST4AI_MGMT_NETNS="/proc/%d/ns/net" % os.getpid())
        tool = os.path.join(REPO, "tools", "distribute", "mcast4ai-distribute")
        # the group address follows from the object: the sender creates the group, the receivers are told it
        # here the way a job script would read it (the sender's first line); they start first and wait
        digest16 = self.digest[:16]
        procs = []
        stats = os.path.join(WORK, "sender.json")
        sender = subprocess.Popen(self.ns(self.source, tool, "send", self.file, "--receivers",
                                          ",".join(h["ip"] for h in receivers), "--source", self.source["ip"],
                                          "--interface", self.source["ip"], "--rate", str(self.a.rate),
                                          "--client", os.path.join(HERE, "mgmt-client"),
                                          "--wait-receivers", str(self.a.sender_wait),
                                          "--stats", stats, "--timeout", "300"),
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        group = None
        for _ in range(600):
            code, gs = self.rest.request("GET", "groups?tenant=bench&name=obj-" + digest16)
            live = [g for g in gs.get("groups", []) if g["state"] == "INSTALLED"]
            if live:
                group = live[0]["address"]
                break
            time.sleep(0.05)
        if group is None:
            sender.kill()
            raise RuntimeError("mcast4ai-distribute did not set up its group: " + sender.communicate()[1][-500:])
        def receiver(h):
            return subprocess.Popen(self.ns(h, "/usr/bin/python3", os.path.join(REPO, "tools", "distribute",
                                                                               "distribute.py"),
                                            "receive", "--out", outs[h["name"]], "--group", group, "--interface",
                                            h["ip"], "--timeout", "300", "--stats",
                                            os.path.join(WORK, "rx-%s.json" % h["name"])),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        late = receivers[len(receivers) - self.a.late:] if self.a.late else []
        for h in receivers:
            if h not in late:
                procs.append(receiver(h))
        if late:
            # receivers that start once the transfer runs: the sender stops waiting for them, they NACK what
            # passed them by, or catch up over TCP when that is most of the object
            time.sleep(self.a.late_after)
            procs += [receiver(h) for h in late]
        out, err = sender.communicate()
        for p in procs:
            p.wait()
        setup = time.monotonic() - t0
        s = json.load(open(stats)) if os.path.exists(stats) else {}
        # from the first datagram (every receiver ready) to the last receiver verified, as the others are timed
        # from their start with their receivers running; the group's creation and the rendezvous apart
        elapsed = s.get("seconds", setup)
        if sender.returncode:
            print("distribute-lab: mcast4ai-distribute exited %d: %s" % (sender.returncode, err[-400:]),
                  flush=True)
        # CPU per GB of the object: the sender's data path, and the median receiver's
        gb = os.path.getsize(self.file) / 1e9
        rx_cpu = []
        for h in receivers:
            try:
                rx_cpu.append(json.load(open(os.path.join(WORK, "rx-%s.json" % h["name"])))["cpu_seconds"])
            except (OSError, ValueError, KeyError):
                pass
        rx_cpu.sort()
        cpu = dict(sender_cpu_s_per_gb=round(s["cpu_seconds"] / gb, 2) if "cpu_seconds" in s else None,
                   receiver_cpu_s_per_gb=round(rx_cpu[len(rx_cpu) // 2] / gb, 2) if rx_cpu else None)
        late_unicast = late_peer = 0
        for h in late:
            try:
                st = json.load(open(os.path.join(WORK, "rx-%s.json" % h["name"])))
                late_unicast += st.get("unicast_symbols", 0)
                late_peer += st.get("peer_symbols", 0)
            except (OSError, ValueError):
                pass
        return dict(seconds=elapsed, repairs=s.get("repair_datagrams"), fec=s.get("fec_symbols"),
                    unicast_repairs=s.get("repair_unicast"), peer_repairs=s.get("repair_peer"),
                    serve_requests=s.get("serve_requests"), rounds=s.get("rounds"),
                    rate_end=s.get("rate_mbit_end"), cuts=s.get("congestion_cuts"), with_setup_s=round(setup, 2),
                    late=len(late), late_unicast_symbols=late_unicast, late_peer_symbols=late_peer, trace=s.get("trace"), **cpu)

    def run_uftp(self, receivers, outs, t0):
        g = self.group("uftp-%d" % int(time.time() * 1000), receivers)
        addr = g["address"]
        daemons = []
        for h in receivers:
            daemons.append(subprocess.Popen(self.ns(h, "uftpd", "-d", "-D", outs[h["name"]], "-M", addr, "-I",
                                                    h["ip"], "-L", os.path.join(WORK, "uftpd-%s.log" % h["name"])),
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        t0 = time.monotonic()
        r = subprocess.run(self.ns(self.source, "uftp", "-M", addr, "-P", addr, "-I", self.source["ip"], "-R",
                                   str(int(self.a.rate * 1000)), "-Y", "none", "-C", "none", "-q",
                                   "-L", os.path.join(WORK, "uftp.log"), self.file),
                           capture_output=True, text=True, timeout=600)
        self.wait_files(receivers, outs, "model.bin", 30)
        elapsed = time.monotonic() - t0
        for d in daemons:
            d.kill()
        self.withdraw(g["id"])
        return dict(seconds=elapsed, exit=r.returncode)

    def run_udpcast(self, receivers, outs, t0):
        g = self.group("udpcast-%d" % int(time.time() * 1000), receivers)
        addr = g["address"]
        rx = []
        for h in receivers:
            rx.append(subprocess.Popen(self.ns(h, "udp-receiver", "--file", os.path.join(outs[h["name"]], "model.bin"),
                                               "--interface", "eth0", "--mcast-rdv-address", addr, "--portbase",
                                               str(PORT + 10), "--nokbd", "--nosync"),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        t0 = time.monotonic()
        sender = subprocess.Popen(self.ns(self.source, "udp-sender", "--file", self.file, "--interface", "eth0",
                                          "--mcast-data-address", addr, "--mcast-rdv-address", addr, "--portbase",
                                          str(PORT + 10), "--min-receivers", str(len(receivers)), "--max-wait",
                                          "20", "--nokbd", "--max-bitrate", "%dm" % self.a.rate),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            # udpcast can hang at high loss (a receiver never completes): given up after --give-up seconds
            code = sender.wait(self.a.give_up)
        except subprocess.TimeoutExpired:
            sender.kill()
            code = "killed after %d s" % self.a.give_up
        end = time.monotonic() + 30                 # the receivers together, not 30 s each
        for p in rx:
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        elapsed = time.monotonic() - t0
        self.withdraw(g["id"])
        return dict(seconds=elapsed, exit=code)

    def run_unicast(self, receivers, outs, t0):
        server = subprocess.Popen(self.ns(self.source, "/usr/bin/python3", "-m", "http.server", str(PORT + 20),
                                          "--bind", self.source["ip"], "--directory", WORK),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.7)
        t0 = time.monotonic()
        procs = [subprocess.Popen(self.ns(h, "curl", "-s", "-o", os.path.join(outs[h["name"]], "model.bin"),
                                          "http://%s:%d/model.bin" % (self.source["ip"], PORT + 20)))
                 for h in receivers]
        for p in procs:
            p.wait()
        elapsed = time.monotonic() - t0
        server.kill()
        return dict(seconds=elapsed)

    def wait_files(self, receivers, outs, name, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(sha(os.path.join(outs[h["name"]], name)) == self.digest for h in receivers):
                return True
            time.sleep(0.2)
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--rest", required=True)
    ap.add_argument("--user", default="onos")
    ap.add_argument("--password", default="rocks")
    ap.add_argument("--tools", default="mcast4ai,uftp,udpcast,unicast")
    ap.add_argument("--sizes", default="4,8,16,32")
    ap.add_argument("--loss", default="0,1,5", help="percent, on --lossy receivers' links")
    ap.add_argument("--lossy", default="all", help="how many receivers' links lose (all: every receiver's)")
    ap.add_argument("--file-mb", type=int, default=64)
    ap.add_argument("--rate", type=int, default=200, help="Mbit/s, every multicast tool's highest sending rate")
    ap.add_argument("--late", type=int, default=0, help="this many receivers start after the transfer did")
    ap.add_argument("--late-after", type=float, default=3.0, help="seconds after the sender the late ones start")
    ap.add_argument("--sender-wait", type=float, default=20, help="the sender's --wait-receivers")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--give-up", type=int, default=120, help="seconds after which a hung udpcast run is killed")
    ap.add_argument("--results")
    ap.add_argument("--demo-line", action="store_true", help="end with the demo's line for the last run")
    a = ap.parse_args()
    a.lossy = -1 if a.lossy == "all" else int(a.lossy)
    lab = Lab(a)
    rows = []
    try:
        for loss in [int(x) for x in a.loss.split(",")]:
            for n in [int(x) for x in a.sizes.split(",")]:
                for tool in a.tools.split(","):
                    rows.append(lab.run(tool, n, loss))
    finally:
        lab.loss.close()
        if a.results:
            with open(a.results, "w") as f:
                json.dump(dict(file_mb=a.file_mb, rate_mbit=a.rate, lossy=a.lossy, runs=rows), f, indent=1)
    ok = bool(rows) and all(r["verified"] == r["receivers"] for r in rows)
    if a.demo_line:
        r = rows[-1] if rows else dict(receivers=0, verified=0, loss_pct=0, sender_ratio=0, repairs=0)
        print("distribute: receivers=%d verified=%d loss=%d%% sender_ratio=%.3f repairs=%s"
              % (r["receivers"], r["verified"], r["loss_pct"], r["sender_ratio"], r.get("repairs")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
