"""Build and tear down the P4 lab fabric: one BMv2 simple_switch per switch, loaded with mcast4ai.p4.

Called by tools/lab/fabric with --p4.
  up   [--topo leafspine|fattree] [--spines S --leaves L --hosts-per-leaf H] [--k K] [--out FILE] [--json FILE]
  down [--fabric FILE]

The same fabric description as the Open vSwitch lab (topology.py), with P4 device ids (device:<name>) and, per
switch, the simple_switch's thrift port. Every switch port is a veth: a switch-to-switch link is one veth pair
whose ends two simple_switch processes own, a host's port the root end of the pair whose other end is the host's
eth0 in its namespace (as in the Open vSwitch lab). The switches start with the program loaded and every table
empty: the lab runner writes them with the app's entries. Nothing is written to them here.
"""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402
import topology  # noqa: E402

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(LAB_DIR))
RUN_DIR = os.path.join(LAB_DIR, "out", "p4")
THRIFT_BASE = 9090


def log(msg):
    print("p4fabric: " + msg, file=sys.stderr, flush=True)


def describe(desc):
    """The Open vSwitch description turned into the P4 lab's: device ids device:<name>, thrift ports."""
    ids = {}
    for i, sw in enumerate(desc["switches"]):
        new = "device:" + sw["name"]
        ids[sw["deviceId"]] = new
        sw["deviceId"] = new
        sw["thrift"] = THRIFT_BASE + i
        sw["p4"] = True
    for ln in desc["links"]:
        ln["a"] = ids[ln["a"]]
        ln["b"] = ids[ln["b"]]
    for h in desc["hosts"]:
        h["deviceId"] = ids[h["deviceId"]]
    desc["p4"] = True
    return desc


def switch_ifaces(desc):
    """Per switch bridge name: [(port, interface)]."""
    out = {sw["bridge"]: [] for sw in desc["switches"]}
    for bridge, port, kind, peer in topology.switch_ports(desc):
        name = topology.patch_name(bridge, port) if kind == "patch" else topology.host_veth(peer)
        out[bridge].append((port, name))
    return out


def program_json(path):
    """The BMv2 JSON the switches load: the given one, or the pipeconf's (mcast4ai.json.gz) unpacked."""
    if path:
        return path
    import gzip
    os.makedirs(RUN_DIR, exist_ok=True)
    out = os.path.join(RUN_DIR, "mcast4ai.json")
    src = os.path.join(REPO, "models", "p4", "mcast4ai.json.gz")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        with gzip.open(src, "rb") as f, open(out + ".tmp", "wb") as g:
            g.write(f.read())
        os.replace(out + ".tmp", out)
    return out


def pids():
    out = {}
    for f in glob.glob(os.path.join(RUN_DIR, "*.pid")):
        try:
            with open(f) as fh:
                out[os.path.basename(f)[:-4]] = int(fh.read().strip())
        except (OSError, ValueError):
            pass
    return out


def down(fabric_file=None):
    t0 = time.monotonic()
    for name, pid in pids().items():
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            os.remove(os.path.join(RUN_DIR, name + ".pid"))
        except OSError:
            pass
    veths = [os.path.basename(n) for n in glob.glob("/sys/class/net/m4*")]
    namespaces = sorted(os.path.basename(n) for n in glob.glob("/run/netns/" + fabric.NS_PREFIX + "*"))
    batch = "".join("link delete %s\n" % v for v in veths)
    batch += "".join("netns delete %s\n" % n for n in namespaces)
    if batch:
        fabric.run(["ip", "-force", "-batch", "-"], stdin=batch, check=False)
    log("down: stopped the switches, removed %d interfaces and %d namespaces in %.2f s"
        % (len(veths), len(namespaces), time.monotonic() - t0))
    return 0


def wait_thrift(port, deadline):
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def up(desc, out, program=None):
    t0 = time.monotonic()
    if pids() or glob.glob("/sys/class/net/m4*") or glob.glob("/run/netns/" + fabric.NS_PREFIX + "*"):
        log("removing a previous lab first")
        down()
    if not subprocess.run(["sh", "-c", "command -v simple_switch"], capture_output=True).stdout:
        raise RuntimeError("simple_switch is not on the PATH (eval \"$(../shared/p4tools/install)\")")
    program = program_json(program)
    desc = describe(desc)
    fabric.create_hosts(desc["hosts"])
    links = ""
    for ln in desc["links"]:
        a = topology.patch_name(next(s["bridge"] for s in desc["switches"] if s["deviceId"] == ln["a"]), ln["aPort"])
        b = topology.patch_name(next(s["bridge"] for s in desc["switches"] if s["deviceId"] == ln["b"]), ln["bPort"])
        links += "link add %s type veth peer name %s\n" % (a, b)
    fabric.run(["ip", "-batch", "-"], stdin=links)
    ifaces = switch_ifaces(desc)
    names = [n for lst in ifaces.values() for _, n in lst]
    for n in names:
        fabric.write_sysctl("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % n, "1")
    fabric.run(["ip", "-batch", "-"], stdin="".join("link set %s up\n" % n for n in names))
    os.makedirs(RUN_DIR, exist_ok=True)
    for i, sw in enumerate(desc["switches"]):
        cmd = ["simple_switch", "--device-id", str(i + 1), "--thrift-port", str(sw["thrift"])]
        for port, name in sorted(ifaces[sw["bridge"]]):
            cmd += ["-i", "%d@%s" % (port, name)]
        cmd.append(program)
        logf = open(os.path.join(RUN_DIR, sw["name"] + ".log"), "w")
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        with open(os.path.join(RUN_DIR, sw["name"] + ".pid"), "w") as f:
            f.write("%d\n" % p.pid)
    deadline = time.monotonic() + 60
    for sw in desc["switches"]:
        if not wait_thrift(sw["thrift"], deadline):
            raise RuntimeError("%s: simple_switch did not open thrift port %d (see %s)"
                               % (sw["name"], sw["thrift"], os.path.join(RUN_DIR, sw["name"] + ".log")))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        json.dump(desc, f, indent=2)
        f.write("\n")
    os.replace(out + ".tmp", out)
    log("up: %d BMv2 switches, %d links, %d hosts in %.2f s -> %s"
        % (len(desc["switches"]), len(desc["links"]), len(desc["hosts"]), time.monotonic() - t0, out))
    return 0


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="fabric --p4")
    p.add_argument("command", choices=["up", "down"])
    p.add_argument("--topo", default="leafspine", choices=["leafspine", "fattree"])
    p.add_argument("--spines", type=int, default=2)
    p.add_argument("--leaves", type=int, default=4)
    p.add_argument("--hosts-per-leaf", type=int, default=2)
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--out", default=os.path.join(LAB_DIR, "out", "fabric.json"))
    p.add_argument("--fabric", default=None)
    p.add_argument("--json", default=None, help="the BMv2 JSON to load (default: the pipeconf's)")
    a = p.parse_args(argv)
    try:
        if a.command == "down":
            return down(a.fabric)
        desc = topology.fattree(a.k) if a.topo == "fattree" else topology.leafspine(a.spines, a.leaves,
                                                                                      a.hosts_per_leaf)
        return up(desc, a.out, a.json)
    except (RuntimeError, topology.TopologyError, OSError) as e:
        log("error: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
