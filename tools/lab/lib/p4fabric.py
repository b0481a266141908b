"""Build and tear down the P4 lab fabric: one BMv2 simple_switch per switch, loaded with mcast4ai.p4.

Called by tools/lab/fabric with --p4.
  up   [--topo leafspine|fattree] [--spines S --leaves L --hosts-per-leaf H] [--k K] [--out FILE] [--json FILE]
  down [--fabric FILE]
  fail-link A B | restore-link A B | fail-switch S | restore-switch S      [--fabric FILE]

A link fails as both its veths drop every frame they send (ebpf/loss.c's cut, a TC program: the kernel here has no
netem) and say so in their alias (BMv2 stalls when one of its interfaces goes down, which no switch does when a
cable is cut); a switch fails as its simple_switch process is killed, and comes back as a
new process on the same ports with every table empty (a switch restarted, or replaced).

The same fabric description as the Open vSwitch lab (topology.py), with P4 device ids (device:<name>) and, per
switch, the simple_switch's thrift port and its CPU port's other end (`cpu`, read by cpu_ports.py). Every switch port is a veth: a switch-to-switch link is one veth pair
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
import loss  # noqa: E402

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(LAB_DIR))
RUN_DIR = os.path.join(LAB_DIR, "out", "p4")
THRIFT_BASE = 9090
CPU_PORT = 255          # the program's CPU port
# packets each egress queue of a switch holds: BMv2's default is 64, a few milliseconds of a burst, where a datacenter
# switch buffers megabytes; the same choice as the Open vSwitch lab's port buffers (fabric.SWITCH_PORT_BUFFER)
QUEUE_DEPTH = int(os.environ.get("MCAST4AI_LAB_P4_QUEUE", "1024"))
PORT_DOWN = "mcast4ai-port-down"
# the link cuts' TC program, shared by the fail-link and restore-link commands (each a process of its own)
CUT_PIN = "/sys/fs/bpf/mcast4ai-p4-cut"


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
    running = pids()
    for name, pid in running.items():
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    # gone before anything reuses their thrift ports: a new switch could not bind it while the old one answers
    deadline = time.monotonic() + 10
    for name, pid in running.items():
        while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if os.path.exists("/proc/%d" % pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.remove(os.path.join(RUN_DIR, name + ".pid"))
        except OSError:
            pass
    veths = [os.path.basename(n) for n in glob.glob("/sys/class/net/m4*")]
    subprocess.run(["rm", "-rf", CUT_PIN], check=False)
    namespaces = sorted(os.path.basename(n) for n in glob.glob("/run/netns/" + fabric.NS_PREFIX + "*"))
    batch = "".join("link delete %s\n" % v for v in veths)
    batch += "".join("netns delete %s\n" % n for n in namespaces)
    if batch:
        fabric.run(["ip", "-force", "-batch", "-"], stdin=batch, check=False)
    log("down: stopped the switches, removed %d interfaces and %d namespaces in %.2f s"
        % (len(veths), len(namespaces), time.monotonic() - t0))
    return 0


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


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
    for sw in desc["switches"]:
        # a switch left by another run would answer in place of the new one, which could not open the port
        if port_open(sw["thrift"]):
            raise RuntimeError("thrift port %d is in use (a simple_switch left running?); stop it first" % sw["thrift"])
    fabric.create_hosts(desc["hosts"])
    links = ""
    for ln in desc["links"]:
        a = topology.patch_name(next(s["bridge"] for s in desc["switches"] if s["deviceId"] == ln["a"]), ln["aPort"])
        b = topology.patch_name(next(s["bridge"] for s in desc["switches"] if s["deviceId"] == ln["b"]), ln["bPort"])
        links += "link add %s type veth peer name %s\n" % (a, b)
    # each switch's CPU port: a veth whose other end the lab runner reads and writes (cpu_ports.py), as ONOS's
    # P4Runtime stream carries packet-ins and packet-outs
    for i, sw in enumerate(desc["switches"]):
        sw["cpu"] = "m4k%d" % i
        links += "link add m4c%d type veth peer name m4k%d\n" % (i, i)
    fabric.run(["ip", "-batch", "-"], stdin=links)
    ifaces = switch_ifaces(desc)
    names = [n for lst in ifaces.values() for _, n in lst]
    names += ["m4c%d" % i for i in range(len(desc["switches"]))] + [sw["cpu"] for sw in desc["switches"]]
    for n in names:
        fabric.write_sysctl("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % n, "1")
    fabric.run(["ip", "-batch", "-"], stdin="".join("link set %s up\n" % n for n in names))
    os.makedirs(RUN_DIR, exist_ok=True)
    for i, sw in enumerate(desc["switches"]):
        cmd = ["simple_switch", "--device-id", str(i + 1), "--thrift-port", str(sw["thrift"])]
        for port, name in sorted(ifaces[sw["bridge"]]):
            cmd += ["-i", "%d@%s" % (port, name)]
        cmd += ["-i", "%d@m4c%d" % (CPU_PORT, i)]
        cmd.append(program)
        with open(os.path.join(RUN_DIR, sw["name"] + ".cmd"), "w") as f:
            json.dump(cmd, f)
        start_switch(sw["name"], cmd)
    deadline = time.monotonic() + 60
    for sw in desc["switches"]:
        pid = pids().get(sw["name"])
        if not wait_thrift(sw["thrift"], deadline) or not pid or not os.path.exists("/proc/%d" % pid):
            raise RuntimeError("%s: simple_switch did not open thrift port %d (see %s)"
                               % (sw["name"], sw["thrift"], os.path.join(RUN_DIR, sw["name"] + ".log")))
        set_queues(sw)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        json.dump(desc, f, indent=2)
        f.write("\n")
    os.replace(out + ".tmp", out)
    log("up: %d BMv2 switches, %d links, %d hosts in %.2f s -> %s"
        % (len(desc["switches"]), len(desc["links"]), len(desc["hosts"]), time.monotonic() - t0, out))
    return 0


def set_queues(sw):
    """Gives a switch's egress queues QUEUE_DEPTH packets (0: BMv2's default)."""
    if QUEUE_DEPTH <= 0:
        return
    r = subprocess.run(["simple_switch_CLI", "--thrift-port", str(sw["thrift"])], input="set_queue_depth %d\n"
                       % QUEUE_DEPTH, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or "Error" in r.stdout:
        raise RuntimeError("%s: set_queue_depth: %s" % (sw["name"], (r.stdout + r.stderr).strip()[-300:]))


def start_switch(name, cmd):
    logf = open(os.path.join(RUN_DIR, name + ".log"), "a")
    p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
    with open(os.path.join(RUN_DIR, name + ".pid"), "w") as f:
        f.write("%d\n" % p.pid)


def find_switch(desc, name):
    for sw in desc["switches"]:
        if name in (sw["name"], sw["deviceId"], sw["bridge"]):
            return sw
    raise RuntimeError("no switch %s in the fabric" % name)


def link_ifaces(desc, a, b):
    sa, sb = find_switch(desc, a), find_switch(desc, b)
    for ln in desc["links"]:
        if {ln["a"], ln["b"]} == {sa["deviceId"], sb["deviceId"]}:
            bridge = {s["deviceId"]: s["bridge"] for s in desc["switches"]}
            return [topology.patch_name(bridge[ln["a"]], ln["aPort"]), topology.patch_name(bridge[ln["b"]], ln["bPort"])]
    raise RuntimeError("no link between %s and %s" % (a, b))


def fault(command, args, fabric_file):
    with open(fabric_file) as f:
        desc = json.load(f)
    t0 = time.monotonic()
    if command in ("fail-link", "restore-link"):
        # BMv2 stops forwarding on every port once one of its interfaces goes down, which no switch does when a
        # cable is cut: the link drops every frame both ways instead, and its ports say they are down in their
        # alias, which the lab runner reads as ONOS reads a port status
        cuts = loss.Loss(CUT_PIN, keep=True)
        for i in link_ifaces(desc, *args):
            if command == "fail-link":
                cuts.cut(i)
                fabric.write_sysctl("/sys/class/net/%s/ifalias" % i, PORT_DOWN)
            else:
                cuts.uncut(i)
                # an empty write leaves the alias as it was: a lone newline clears it
                fabric.write_sysctl("/sys/class/net/%s/ifalias" % i, "\n")
    elif command == "fail-switch":
        sw = find_switch(desc, args[0])
        pid = pids().get(sw["name"])
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 10
            while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
                time.sleep(0.05)
    elif command == "restore-switch":
        sw = find_switch(desc, args[0])
        with open(os.path.join(RUN_DIR, sw["name"] + ".cmd")) as f:
            start_switch(sw["name"], json.load(f))
        if not wait_thrift(sw["thrift"], time.monotonic() + 60):
            raise RuntimeError("%s did not come back" % sw["name"])
        set_queues(sw)
    log("%s %s in %.2f s" % (command, " ".join(args), time.monotonic() - t0))
    return 0


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="fabric --p4")
    p.add_argument("command", choices=["up", "down", "fail-link", "restore-link", "fail-switch",
                                       "restore-switch"])
    p.add_argument("names", nargs="*")
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
        if a.command != "up":
            want = 2 if a.command.endswith("link") else 1
            if len(a.names) != want:
                raise RuntimeError("%s takes %d name(s)" % (a.command, want))
            return fault(a.command, a.names, a.fabric or a.out)
        desc = topology.fattree(a.k) if a.topo == "fattree" else topology.leafspine(a.spines, a.leaves,
                                                                                      a.hosts_per_leaf)
        return up(desc, a.out, a.json)
    except (RuntimeError, topology.TopologyError, OSError) as e:
        log("error: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
