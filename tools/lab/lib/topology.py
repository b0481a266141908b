"""Fabric descriptions for the Open vSwitch lab (pure: no I/O).

A description is the dict written to fabric.json (see tools/lab/README.md):
switches, links (listed once, bidirectional) and hosts, with OpenFlow port
numbers that the fabric script requests through ofport_request.

Naming (kept clear of Mininet's s1/h1):
  bridges   m4leaf<i>, m4spine<i> (leaf-spine); m4p<p>e<i>, m4p<p>a<i>, m4c<i> (fat tree)
  hosts     h<n> in namespace m4h<n>, interface eth0, MAC 02:00:00:00:<leaf>:<k>,
            IP 10.77.<leaf>.<k> where <leaf> is the global leaf number and <k> the host's
            index on that leaf.
  dpid      <role code><index>: 01xx leaf, 02xx spine, 03xx super-spine.
"""

ROLE_CODES = {"LEAF": 0x01, "SPINE": 0x02, "SUPER_SPINE": 0x03}
MAX_INDEX = 0xFF


class TopologyError(ValueError):
    """A topology parameter is out of range."""


def _dpid(role, index):
    if not 1 <= index <= MAX_INDEX:
        raise TopologyError("switch index %d out of range 1..%d" % (index, MAX_INDEX))
    return "%016x" % ((ROLE_CODES[role] << 8) | index)


class _Builder:
    def __init__(self, name):
        self.name = name
        self.switches = []
        self.links = []
        self.hosts = []
        self._by_name = {}

    def switch(self, name, role, index):
        dpid = _dpid(role, index)
        sw = {"name": name, "bridge": "m4" + name, "dpid": dpid,
              "deviceId": "of:" + dpid, "role": role}
        self.switches.append(sw)
        self._by_name[name] = sw
        return sw

    def link(self, a, a_port, b, b_port):
        sa, sb = self._by_name[a], self._by_name[b]
        self.links.append({"a": sa["deviceId"], "aPort": a_port, "aBridge": sa["bridge"],
                           "b": sb["deviceId"], "bPort": b_port, "bBridge": sb["bridge"]})

    def host(self, leaf, leaf_number, k, port):
        if not 1 <= k <= MAX_INDEX:
            raise TopologyError("host index %d out of range 1..%d" % (k, MAX_INDEX))
        n = len(self.hosts) + 1
        sw = self._by_name[leaf]
        self.hosts.append({"name": "h%d" % n, "ns": "m4h%d" % n, "iface": "eth0",
                           "mac": "02:00:00:00:%02x:%02x" % (leaf_number, k),
                           "ip": "10.77.%d.%d" % (leaf_number, k),
                           "deviceId": sw["deviceId"], "port": port})

    def build(self):
        return {"name": self.name, "switches": self.switches,
                "links": self.links, "hosts": self.hosts}


def leafspine(spines=2, leaves=4, hosts_per_leaf=2):
    """Two-tier Clos: every leaf links to every spine.

    Leaf ports 1..H go to hosts, H+1..H+S to spines 1..S; spine port i goes to leaf i.
    """
    for what, value in (("spines", spines), ("leaves", leaves), ("hosts-per-leaf", hosts_per_leaf)):
        if not 1 <= value <= MAX_INDEX:
            raise TopologyError("%s must be in 1..%d, got %d" % (what, MAX_INDEX, value))
    b = _Builder("leafspine-%ds-%dl-%dh" % (spines, leaves, hosts_per_leaf))
    for i in range(1, leaves + 1):
        b.switch("leaf%d" % i, "LEAF", i)
    for s in range(1, spines + 1):
        b.switch("spine%d" % s, "SPINE", s)
    for i in range(1, leaves + 1):
        for k in range(1, hosts_per_leaf + 1):
            b.host("leaf%d" % i, i, k, k)
        for s in range(1, spines + 1):
            b.link("leaf%d" % i, hosts_per_leaf + s, "spine%d" % s, i)
    return b.build()


def fattree(k=4):
    """k-ary fat tree: k pods of k/2 edge (LEAF) and k/2 aggregation (SPINE) switches,
    (k/2)^2 core (SUPER_SPINE) switches, k/2 hosts per edge switch.

    Edge ports 1..k/2 hosts, k/2+1..k aggregation 1..k/2 of its pod. Aggregation ports
    1..k/2 edges of its pod, k/2+1..k cores (a-1)*k/2+1 .. a*k/2. Core port p goes to pod p.
    """
    if k < 2 or k % 2 or (k * k // 2) > MAX_INDEX:
        raise TopologyError("k must be even, >= 2 and small enough for the lab, got %d" % k)
    half = k // 2
    b = _Builder("fattree-k%d" % k)
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            b.switch("p%de%d" % (p, e), "LEAF", (p - 1) * half + e)
    for p in range(1, k + 1):
        for a in range(1, half + 1):
            b.switch("p%da%d" % (p, a), "SPINE", (p - 1) * half + a)
    for c in range(1, half * half + 1):
        b.switch("c%d" % c, "SUPER_SPINE", c)
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            edge = "p%de%d" % (p, e)
            leaf_number = (p - 1) * half + e
            for h in range(1, half + 1):
                b.host(edge, leaf_number, h, h)
            for a in range(1, half + 1):
                b.link(edge, half + a, "p%da%d" % (p, a), e)
        for a in range(1, half + 1):
            for j in range(1, half + 1):
                b.link("p%da%d" % (p, a), half + j, "c%d" % ((a - 1) * half + j), p)
    return b.build()


def switch_ports(desc):
    """Every (bridge, port, kind, peer) the description implies; kind is 'patch' or 'host'.

    For a patch port, peer is (peer bridge, peer port); for a host port, peer is the host dict.
    """
    bridge_of = {sw["deviceId"]: sw["bridge"] for sw in desc["switches"]}
    out = []
    for ln in desc["links"]:
        out.append((ln["aBridge"], ln["aPort"], "patch", (ln["bBridge"], ln["bPort"])))
        out.append((ln["bBridge"], ln["bPort"], "patch", (ln["aBridge"], ln["aPort"])))
    for h in desc["hosts"]:
        out.append((bridge_of[h["deviceId"]], h["port"], "host", h))
    return out


def patch_name(bridge, port):
    """Name of the patch interface for port `port` of `bridge` (<= 15 characters)."""
    return "%s-%d" % (bridge, port)


def host_veth(host):
    """Root-namespace end of a host's veth pair (<= 15 characters)."""
    return "%s-%s" % (host["ns"], host["iface"])
