"""Build and tear down the Open vSwitch lab fabric (standard library only).

Called by tools/lab/fabric after it has made sure OVS and iproute2 are present.
  up   [--topo leafspine|fattree] [--spines S --leaves L --hosts-per-leaf H] [--k K] [--out FILE]
  down [--fabric FILE]
  fail-link A B | restore-link A B | fail-switch S | restore-switch S
  fail-host H | restore-host H | move-host H S P      [--fabric FILE]
"""

import argparse
import array
import contextlib
import ctypes
import fcntl
import glob
import json
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import topology  # noqa: E402

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(LAB_DIR, "out", "fabric.json")
BRIDGE_PREFIX = "m4"
NS_PREFIX = "m4h"
CLONE_NEWNET = 0x40000000


def log(msg):
    print("fabric: " + msg, file=sys.stderr, flush=True)


def run(cmd, stdin=None, check=True):
    p = subprocess.run(cmd, input=stdin, text=True, capture_output=True)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]), p.returncode,
                                                   (p.stderr or p.stdout).strip()[:2000]))
    return p


def write_sysctl(path, value):
    with open(path, "w") as f:
        f.write(value)


# The packet buffer of a switch port. Userspace OVS reads each host port through a packet socket, whose receive
# buffer (net.core.rmem_default when the port is added, 208 KiB on Debian) is all the buffer a port has: its one
# forwarding thread, descheduled for 15 ms on a loaded machine, drops what a sender sends meanwhile, at any rate.
# Datacenter switches buffer megabytes; a port gets 4 MiB (MCAST4AI_LAB_PORT_BUFFER bytes; 0 keeps the default),
# and the buffers of sockets created at any other time stay the machine's default.
SWITCH_PORT_BUFFER = int(os.environ.get("MCAST4AI_LAB_PORT_BUFFER", 4 << 20))
_RMEM_DEFAULT = "/proc/sys/net/core/rmem_default"
_RMEM_MAX = "/proc/sys/net/core/rmem_max"


@contextlib.contextmanager
def switch_buffers():
    """While ports are added: the packet sockets OVS opens for them get SWITCH_PORT_BUFFER."""
    if SWITCH_PORT_BUFFER <= 0:
        yield
        return
    try:
        saved = open(_RMEM_DEFAULT).read().strip()
        if int(open(_RMEM_MAX).read()) < SWITCH_PORT_BUFFER:
            write_sysctl(_RMEM_MAX, str(SWITCH_PORT_BUFFER))
        write_sysctl(_RMEM_DEFAULT, str(SWITCH_PORT_BUFFER))
    except OSError:
        saved = None    # not root, or no /proc/sys: the ports keep the default
    try:
        yield
    finally:
        if saved is not None:
            write_sysctl(_RMEM_DEFAULT, saved)


class _NetNs:
    """Enter a named network namespace for this thread; restore on exit.

    /proc/sys/net follows the namespace of the writing thread, so sysctls of a namespace
    can be set here without forking `ip netns exec`.
    """
    _libc = ctypes.CDLL(None, use_errno=True)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self._home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        fd = os.open("/run/netns/" + self.name, os.O_RDONLY)
        try:
            if self._libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + self.name)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        self._libc.setns(self._home, CLONE_NEWNET)
        os.close(self._home)


# ---------------------------------------------------------------- down

def existing_lab():
    """Bridges, namespaces and root veth ends currently present with the lab prefixes."""
    p = run(["ovs-vsctl", "--timeout=10", "list-br"], check=False)
    bridges = [b for b in p.stdout.split() if b.startswith(BRIDGE_PREFIX)]
    namespaces = sorted(os.path.basename(n) for n in glob.glob("/run/netns/" + NS_PREFIX + "*"))
    veths = [os.path.basename(n) for n in glob.glob("/sys/class/net/" + NS_PREFIX + "*")]
    return bridges, namespaces, veths


def down(fabric_file=None):
    """Remove what the lab created: the fabric file's names plus anything with the prefixes."""
    t0 = time.monotonic()
    bridges, namespaces, veths = existing_lab()
    if fabric_file and os.path.exists(fabric_file):
        try:
            with open(fabric_file) as f:
                desc = json.load(f)
            present = set(run(["ovs-vsctl", "--timeout=10", "list-br"], check=False).stdout.split())
            bridges = sorted(set(bridges) | ({s["bridge"] for s in desc.get("switches", [])} & present))
            namespaces = sorted(set(namespaces) | {h["ns"] for h in desc.get("hosts", [])
                                                   if os.path.exists("/run/netns/" + h["ns"])})
        except (ValueError, KeyError, OSError) as e:
            log("ignoring unreadable %s (%s); removing by prefix" % (fabric_file, e))
    if bridges:
        cmd = ["ovs-vsctl", "--timeout=30"]
        for b in bridges:
            cmd += ["--", "--if-exists", "del-br", b]
        run(cmd, check=False)
    # deleting the root end deletes the pair at once; a namespace's own cleanup is asynchronous
    batch = "".join("link delete %s\n" % v for v in veths)
    batch += "".join("netns delete %s\n" % n for n in namespaces
                     if os.path.exists("/run/netns/" + n))
    if batch:
        run(["ip", "-force", "-batch", "-"], stdin=batch, check=False)
    left = existing_lab()
    if any(left):
        log("could not remove: bridges=%s namespaces=%s veths=%s" % left)
        return 1
    log("down: removed %d bridges, %d namespaces in %.2f s"
        % (len(bridges), len(namespaces), time.monotonic() - t0))
    return 0


# ---------------------------------------------------------------- up

def bridge_args(sw):
    """ovs-vsctl arguments creating one switch's bridge (no ports)."""
    return ["--", "add-br", sw["bridge"],
            "--", "set", "bridge", sw["bridge"], "datapath_type=netdev", "fail_mode=secure",
            "protocols=OpenFlow13,OpenFlow14,OpenFlow15",
            "other-config:datapath-id=" + sw["dpid"],
            "other-config:disable-in-band=true"]


def port_args(bridge, port, kind, peer):
    """ovs-vsctl arguments adding one port: a patch end or a host's veth."""
    if kind == "patch":
        name = topology.patch_name(bridge, port)
        return ["--", "add-port", bridge, name,
                "--", "set", "interface", name, "type=patch",
                "options:peer=" + topology.patch_name(*peer),
                "ofport_request=%d" % port]
    name = topology.host_veth(peer)
    return ["--", "add-port", bridge, name,
            "--", "set", "interface", name, "ofport_request=%d" % port]


def ovs_transaction(desc):
    """One ovs-vsctl call creating every bridge and port of the description."""
    cmd = ["ovs-vsctl", "--timeout=60"]
    for sw in desc["switches"]:
        cmd += bridge_args(sw)
    for bridge, port, kind, peer in topology.switch_ports(desc):
        cmd += port_args(bridge, port, kind, peer)
    return cmd


SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8913, 0x8914
SIOCSIFADDR, SIOCSIFNETMASK = 0x8916, 0x891C
SIOCSARP = 0x8955
SIOCETHTOOL, ETHTOOL_STXCSUM = 0x8946, 0x17
IFF_UP = 0x1
ATF_COM, ATF_PERM = 0x02, 0x04


def _ifreq(name, payload=b""):
    return struct.pack("16s", name.encode()) + payload.ljust(24, b"\0")


def _sockaddr_in(ip):
    return struct.pack("=H2x4s8x", socket.AF_INET, socket.inet_aton(ip))


def _configure_in_namespace(h, others):
    """Inside the host's namespace (this thread): lo and eth0 up, IPv4 /16, static ARP.

    Plain ioctls on one socket: starting an `ip -n` process per namespace cost ten times more.
    """
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        def up(dev):
            flags = struct.unpack_from("H", fcntl.ioctl(s, SIOCGIFFLAGS, _ifreq(dev)), 16)[0]
            fcntl.ioctl(s, SIOCSIFFLAGS, _ifreq(dev, struct.pack("H", flags | IFF_UP)))
        up("lo")
        # no transmit checksum offload: Open vSwitch's userspace datapath forwards a veth's frames as they come,
        # and a UDP or TCP checksum left for "hardware" to fill in would reach the receiver wrong (RoCEv2's UDP
        # checksum 0 never showed it; a kernel UDP socket drops every such datagram)
        value = array.array("I", [ETHTOOL_STXCSUM, 0])
        fcntl.ioctl(s, SIOCETHTOOL, struct.pack("16sP", h["iface"].encode(), value.buffer_info()[0]))
        fcntl.ioctl(s, SIOCSIFADDR, _ifreq(h["iface"], _sockaddr_in(h["ip"])))
        fcntl.ioctl(s, SIOCSIFNETMASK, _ifreq(h["iface"], _sockaddr_in("255.255.0.0")))
        up(h["iface"])
        for o in others:
            mac = bytes(int(x, 16) for x in o["mac"].split(":"))
            req = (_sockaddr_in(o["ip"])
                   + struct.pack("=H14s", 1, mac)          # ARPHRD_ETHER
                   + struct.pack("i", ATF_COM | ATF_PERM)
                   + struct.pack("16x")
                   + struct.pack("16s", h["iface"].encode()))
            fcntl.ioctl(s, SIOCSARP, req)
    finally:
        s.close()


def create_hosts(hosts):
    """Namespaces, veth pairs (IPv6 off on both ends), MACs, addresses, static ARP."""
    run(["ip", "-batch", "-"], stdin="".join("netns add %s\n" % h["ns"] for h in hosts))
    for h in hosts:
        # interfaces moved into the namespace take its defaults: no IPv6, so no RS/MLD noise
        with _NetNs(h["ns"]):
            for conf in ("all", "default"):
                write_sysctl("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % conf, "1")
    run(["ip", "-batch", "-"], stdin="".join(
        "link add %s type veth peer name %s address %s netns %s\n"
        % (topology.host_veth(h), h["iface"], h["mac"], h["ns"]) for h in hosts))
    for h in hosts:
        write_sysctl("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % topology.host_veth(h), "1")
    run(["ip", "-batch", "-"], stdin="".join("link set %s up\n" % topology.host_veth(h) for h in hosts))
    for h in hosts:
        with _NetNs(h["ns"]):
            try:
                _configure_in_namespace(h, [o for o in hosts if o is not h])
            except OSError as e:
                raise RuntimeError("configuring %s in %s: %s" % (h["iface"], h["ns"], e))


def verify(desc):
    """Check that every requested OpenFlow port number was granted."""
    wanted = {}
    for bridge, port, kind, peer in topology.switch_ports(desc):
        name = topology.patch_name(bridge, port) if kind == "patch" else topology.host_veth(peer)
        wanted[name] = port
    p = run(["ovs-vsctl", "--format=csv", "--no-headings", "--columns=name,ofport,error",
             "list", "interface"])
    got = {}
    errors = []
    for line in p.stdout.splitlines():
        name, ofport, error = (line.split(",", 2) + ["", ""])[:3]
        got[name] = int(ofport) if ofport.lstrip("-").isdigit() else -1
        if name in wanted and error not in ("", "[]", '""'):
            errors.append("%s: %s" % (name, error))
    bad = ["%s wants %d got %s" % (n, p_, got.get(n)) for n, p_ in wanted.items() if got.get(n) != p_]
    if bad or errors:
        raise RuntimeError("port set-up failed: " + "; ".join(bad + errors)[:2000])


def up(desc, out):
    t0 = time.monotonic()
    if any(existing_lab()):
        log("removing a previous lab first")
        down(out)
    t1 = time.monotonic()
    create_hosts(desc["hosts"])
    t2 = time.monotonic()
    with switch_buffers():
        run(ovs_transaction(desc))
    verify(desc)
    t3 = time.monotonic()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(desc, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    log("up %s: %d switches, %d links, %d hosts in %.2f s (hosts %.2f s, ovs %.2f s) -> %s"
        % (desc["name"], len(desc["switches"]), len(desc["links"]), len(desc["hosts"]),
           t3 - t1, t2 - t1, t3 - t2, out))
    return 0



# ---------------------------------------------------------------- faults

def _switch(desc, name):
    for sw in desc["switches"]:
        if name in (sw["name"], sw["bridge"], sw["deviceId"]):
            return sw
    raise LookupError("no switch %r in the fabric" % name)


def _host(desc, name):
    for h in desc["hosts"]:
        if name in (h["name"], h["ip"], h["mac"]):
            return h
    raise LookupError("no host %r in the fabric" % name)


def _link(desc, a, b):
    sa, sb = _switch(desc, a), _switch(desc, b)
    for ln in desc["links"]:
        if {ln["aBridge"], ln["bBridge"]} == {sa["bridge"], sb["bridge"]}:
            return ln
    raise LookupError("no link between %s and %s" % (a, b))


_CHANGED_AT = []


def _vsctl(args):
    # the fabric changes while this one transaction runs: its start is when a fault's outage may begin
    _CHANGED_AT.append(time.time())
    with switch_buffers():
        run(["ovs-vsctl", "--timeout=30"] + args)


def fault(desc, cmd, args):
    """Fail or restore a part of the running fabric the way hardware fails: the bridge, patch pair or host port
    is deleted (OVS 3.1 ignores admin_state on patch ports) and re-created empty with the same numbers."""
    if cmd in ("fail-link", "restore-link"):
        ln = _link(desc, args[0], args[1])
        ends = [(ln["aBridge"], ln["aPort"], (ln["bBridge"], ln["bPort"])),
                (ln["bBridge"], ln["bPort"], (ln["aBridge"], ln["aPort"]))]
        a = []
        for bridge, port, peer in ends:
            if cmd == "fail-link":
                a += ["--", "--if-exists", "del-port", bridge, topology.patch_name(bridge, port)]
            else:
                a += ["--", "--may-exist"] + port_args(bridge, port, "patch", peer)[1:]
        _vsctl(a)
        return "%s %s %s" % (cmd, args[0], args[1])
    if cmd in ("fail-switch", "restore-switch"):
        sw = _switch(desc, args[0])
        if cmd == "fail-switch":
            _vsctl(["--", "--if-exists", "del-br", sw["bridge"]])
        else:
            a = bridge_args(sw)
            for bridge, port, kind, peer in topology.switch_ports(desc):
                if bridge == sw["bridge"]:
                    a += port_args(bridge, port, kind, peer)
            _vsctl(a)
        return "%s %s" % (cmd, sw["name"])
    if cmd in ("fail-host", "restore-host", "move-host"):
        h = _host(desc, args[0])
        veth = topology.host_veth(h)
        bridges = run(["ovs-vsctl", "--timeout=10", "port-to-br", veth], check=False).stdout.split()
        a = ["--", "--if-exists", "del-port", bridges[0], veth] if bridges else []
        if cmd == "restore-host":
            home = next(sw for sw in desc["switches"] if sw["deviceId"] == h["deviceId"])
            a += port_args(home["bridge"], h["port"], "host", h)
        elif cmd == "move-host":
            to = _switch(desc, args[1])
            a += port_args(to["bridge"], int(args[2]), "host", h)
        if a:
            _vsctl(a)
        return "%s %s" % (cmd, " ".join(args))
    raise LookupError("unknown fault " + cmd)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="fabric", description="Open vSwitch lab fabric")
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("up", help="build the fabric and write its description")
    u.add_argument("--topo", choices=("leafspine", "fattree"), default="leafspine")
    u.add_argument("--spines", type=int, default=2)
    u.add_argument("--leaves", type=int, default=4)
    u.add_argument("--hosts-per-leaf", type=int, default=2)
    u.add_argument("--k", type=int, default=4, help="fat-tree arity")
    u.add_argument("--out", default=DEFAULT_OUT)
    d = sub.add_parser("down", help="remove every lab bridge, namespace and veth")
    d.add_argument("--fabric", default=DEFAULT_OUT)
    for name, what, nargs in (("fail-link", "delete the patch pair between two switches", ["A", "B"]),
                              ("restore-link", "re-create that patch pair", ["A", "B"]),
                              ("fail-switch", "delete a switch's bridge (its flows and groups go with it)", ["S"]),
                              ("restore-switch", "re-create the bridge empty, with its ports", ["S"]),
                              ("fail-host", "unplug a host (delete its port)", ["H"]),
                              ("restore-host", "plug the host back where the fabric says", ["H"]),
                              ("move-host", "plug the host into switch S at port P", ["H", "S", "P"])):
        f = sub.add_parser(name, help=what)
        for n in nargs:
            f.add_argument(n.lower())
        f.add_argument("--fabric", default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        log("must run as root")
        return 2
    if a.cmd == "down":
        return down(a.fabric)
    if a.cmd.startswith(("fail-", "restore-", "move-")):
        try:
            with open(a.fabric) as f:
                desc = json.load(f)
            args = [getattr(a, k) for k in ("a", "b", "s", "h", "p") if getattr(a, k, None) is not None]
            if a.cmd == "move-host":
                args = [a.h, a.s, a.p]
            what = fault(desc, a.cmd, args)
            if _CHANGED_AT:
                what += " at_ms=%d" % int(_CHANGED_AT[-1] * 1000)
            log(what)
            return 0
        except (LookupError, RuntimeError, OSError, ValueError) as e:
            log("%s failed: %s" % (a.cmd, e))
            return 1
    try:
        if a.topo == "fattree":
            desc = topology.fattree(a.k)
        else:
            desc = topology.leafspine(a.spines, a.leaves, a.hosts_per_leaf)
    except topology.TopologyError as e:
        log(str(e))
        return 2
    try:
        return up(desc, a.out)
    except RuntimeError as e:
        log("up failed: %s" % e)
        down(a.out)
        return 1


if __name__ == "__main__":
    sys.exit(main())
