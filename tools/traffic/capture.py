"""Count RoCEv2 copies of one group's packets at every host of the lab.

Only IPv4/UDP-4791 frames addressed to the group count; everything else on the wire
(ARP, other groups, frames the host itself sends) is ignored. Each counted copy is
checked twice: the BTH fields and ICRC by roce.parse (fast), and by a scapy dissection
(an independent decoder) for up to `scapy_limit` copies per host.
"""

import json
import select
import time

import netns
import roce

SCAPY_LIMIT = 200


class HostCapture:
    """Copies of the group's packets seen at one host."""

    def __init__(self, name, ns, iface, sock):
        self.name, self.ns, self.iface, self.sock = name, ns, iface, sock
        self.psns = []
        self.icrc_errors = 0
        self.frames = []
        self.ignored = 0
        self.last_seen = 0.0

    def result(self, scapy_limit=SCAPY_LIMIT):
        decode_errors = 0
        for frame, parsed in self.frames[:scapy_limit]:
            check = roce.scapy_check(frame)
            if check is None or check != (parsed.opcode, parsed.dqpn, parsed.psn, parsed.icrc_ok):
                decode_errors += 1
        distinct = len(set(self.psns))
        return {"received": len(self.psns), "distinct": distinct,
                "duplicates": len(self.psns) - distinct,
                "icrcErrors": self.icrc_errors, "decodeErrors": decode_errors,
                "decodeChecked": min(len(self.frames), scapy_limit)}


class Capture:
    """Packet sockets in every host namespace, opened before anything is sent."""

    def __init__(self, hosts, group):
        """hosts: iterable of dicts with name, ns, iface (the fabric description's hosts)."""
        self.group = group
        self.hosts = {}
        self._by_fd = {}
        try:
            for h in hosts:
                sock = netns.packet_socket(h["ns"], h["iface"])
                sock.setblocking(False)
                hc = HostCapture(h["name"], h["ns"], h["iface"], sock)
                self.hosts[h["name"]] = hc
                self._by_fd[sock.fileno()] = hc
        except Exception:
            self.close()
            raise
        self.drain()

    def drain(self):
        """Drop whatever was queued before the run started."""
        for hc in self.hosts.values():
            while True:
                try:
                    hc.sock.recv(65535)
                except BlockingIOError:
                    break

    def poll(self, timeout):
        """Read every queued frame, waiting up to `timeout` seconds for the first one."""
        ready, _, _ = select.select(list(self._by_fd), [], [], timeout)
        now = time.monotonic()
        for fd in ready:
            hc = self._by_fd[fd]
            while True:
                try:
                    frame, addr = hc.sock.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == netns.PACKET_OUTGOING:
                    hc.ignored += 1
                    continue
                parsed = roce.parse(frame)
                if parsed is None or parsed.dst_ip != self.group:
                    hc.ignored += 1
                    continue
                hc.psns.append(parsed.psn)
                hc.frames.append((frame, parsed))
                if not parsed.icrc_ok:
                    hc.icrc_errors += 1
                hc.last_seen = now
        return len(ready)

    def last_seen(self):
        return max((hc.last_seen for hc in self.hosts.values()), default=0.0)

    def results(self, scapy_limit=SCAPY_LIMIT):
        return {name: hc.result(scapy_limit) for name, hc in self.hosts.items()}

    def close(self):
        for hc in self.hosts.values():
            try:
                hc.sock.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load_fabric(path):
    with open(path) as f:
        return json.load(f)


def resolve_host(fabric, ref):
    """A fabric host named by its name (h3), namespace (m4h3), IP, MAC or ONOS host id (MAC/None)."""
    ref = ref.strip()
    key = ref.lower()
    if key.endswith("/none"):
        key = key[:-5]
    for h in fabric["hosts"]:
        if key in (h["name"].lower(), h["ns"].lower(), h["ip"], h["mac"].lower()):
            return h
    raise LookupError("unknown host %r (not in the fabric description)" % ref)


def dumps(obj):
    """One-line JSON."""
    return json.dumps(obj, separators=(", ", ": "))


def ordered(results, fabric):
    """Results in the fabric's host order (h1, h2, ..., h10)."""
    order = {h["name"]: i for i, h in enumerate(fabric["hosts"])}
    return dict(sorted(results.items(), key=lambda kv: order.get(kv[0], 1 << 30)))

