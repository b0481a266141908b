#!/usr/bin/python3
"""The ACK aggregator on a real interface, with real packets.

A veth pair: the sender's end in this namespace, the fabric's end in another; the program attached to the sender's
interface in both directions (the same pinned instance the agent configures through BPF_PROG_RUN). The sender's
kernel sends its data to the virtual peer through a UDP socket (so the program sees it leave); N receivers' ACKs,
at their own paces, arrive from the fabric side; the sender's own UDP socket on port 4791 gets what the program
lets through. It must be exactly one ACK per advance of the slowest receiver, in order, never beyond it, each a
valid RoCEv2 frame; a stranger's forged ACK and an ACK for a PSN never sent get nothing through.

With --bench COUNT it measures instead what the attached program costs per real frame, as the kernel accounts it
(kernel.bpf_stats_enabled): ACKs that each advance the minimum, ACKs that do not, strangers' ACKs and frames passed
at once, COUNT of each.

  agg_wire.py --object target/ack_agg.o [--receivers 8] [--bench COUNT]
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from scapy.all import Ether, IP, UDP, Raw  # noqa: E402
from scapy.contrib.roce import BTH, AETH  # noqa: E402

import agg_vectors as av

NS, SENDER_IF, FABRIC_IF = "m4agg", "m4agg-s", "m4agg-f"
SENDER_IP, VP_IP = "10.98.0.1", "10.98.0.64"      # VP .64: group index 0 in the program
START, COUNT = 1000, 64
SLICE = 5000                                        # the benchmark's frames a measurement


def sh(*cmd):
    return subprocess.run(list(cmd), check=True, capture_output=True, text=True)


class Wire:
    """The veth pair, the program attached to the sender's end in both directions, group 0 configured with its
    receivers through BPF_PROG_RUN, as the agent does."""

    def __init__(self, obj, receivers):
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        subprocess.run(["ip", "link", "del", SENDER_IF], capture_output=True)
        self.prog = av.Program(obj)
        self.prog_object = obj
        sh("ip", "netns", "add", NS)
        sh("ip", "link", "add", SENDER_IF, "type", "veth", "peer", "name", FABRIC_IF, "netns", NS)
        sh("ip", "link", "set", SENDER_IF, "up")
        sh("ip", "-n", NS, "link", "set", FABRIC_IF, "up")
        sh("ip", "addr", "add", SENDER_IP + "/24", "dev", SENDER_IF)
        self.sender_mac = open("/sys/class/net/%s/address" % SENDER_IF).read().strip()
        self.fabric_mac = sh("ip", "-n", NS, "-br", "link", "show", FABRIC_IF).stdout.split()[2]
        sh("ip", "neigh", "replace", VP_IP, "lladdr", self.fabric_mac, "dev", SENDER_IF)
        sh("tc", "qdisc", "add", "dev", SENDER_IF, "clsact")
        for d in ("ingress", "egress"):
            sh("tc", "filter", "add", "dev", SENDER_IF, d, "bpf", "direct-action", "object-pinned", self.prog.prog)
        av.SENDER_IP, av.SENDER_MAC = SENDER_IP, self.sender_mac
        self.prog.set_clock(0)
        self.prog.run(av.control(av.CONFIG, 0, ip=VP_IP, psn=START, stall_ns=10 ** 12, cnp_ns=0, holdoff_ns=0))
        self.receivers = [("10.98.1.%d" % (r + 1), 0x100 + r) for r in range(receivers)]
        for ip, qpn in self.receivers:
            self.prog.run(av.control(av.JOIN, 0, ip=ip, qpn=qpn, psn=START))

    def close(self):
        subprocess.run(["ip", "link", "del", SENDER_IF], capture_output=True)
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        self.prog.close()

    def listen(self):
        """The sender's socket for what comes back: a process writing the PSN of every ACK that reaches it to a
        file (a pipe would fill and stop it)."""
        out = tempfile.TemporaryFile("w+")
        p = subprocess.Popen(["/usr/bin/python3", "-c", LISTEN], stdout=out, text=True)
        time.sleep(0.5)
        return p, out

    @staticmethod
    def heard(listener):
        """Stops the sender's socket; the PSNs it got, in order."""
        p, out = listener
        time.sleep(1.0)
        p.terminate()
        p.wait()
        out.seek(0)
        got = [int(x) for x in out.read().split()]
        out.close()
        return got

    def send_data(self, count):
        """The sender's data to the VP, PSNs START to START + count - 1, through its kernel."""
        sh("/usr/bin/python3", "-c", SEND % (VP_IP, START, count))

    def ack(self, r, psn, src=None):
        ip, qpn = self.receivers[r]
        return (Ether(dst=self.sender_mac, src=self.fabric_mac) / IP(src=src or ip, dst=VP_IP)
                / UDP(sport=49152, dport=4791, chksum=0) / BTH(opcode=0x11, dqpn=qpn, psn=psn)
                / AETH(syndrome=0, msn=0))

    def acks(self, pairs, src=None):
        """Many ACK frames as bytes, fast: each receiver's frame built once, then its PSN and ICRC written."""
        templates, out = {}, []
        for r, psn in pairs:
            if r not in templates:
                templates[r] = bytes(self.ack(r, 0, src))
            out.append(with_psn(templates[r], psn))
        return out

    def from_fabric(self, frames):
        """Sends frames into the sender's interface from the fabric's end, as fast as one raw socket does."""
        with tempfile.NamedTemporaryFile(suffix=".frames", delete=False) as f:
            for fr in frames:
                b = fr if isinstance(fr, bytes) else bytes(fr)
                f.write(struct.pack("<H", len(b)) + b)
        blast = os.path.join(os.path.dirname(os.path.abspath(self.prog_object)), "blast")
        if os.access(blast, os.X_OK):
            sh("ip", "netns", "exec", NS, blast, FABRIC_IF, f.name)
        else:
            sh("ip", "netns", "exec", NS, "/usr/bin/python3", "-c", BLAST % (FABRIC_IF, f.name))
        os.unlink(f.name)


def with_psn(frame, psn):
    """An ACK frame (62 bytes) with another PSN and its ICRC: CRC-32 over 8 bytes of ones and the IPv4 packet
    with ToS, TTL, the IPv4 and UDP checksums and BTH byte 4 as ones."""
    f = bytearray(frame)
    f[51:54] = (psn & 0xFFFFFF).to_bytes(3, "big")
    m = bytearray(f[14:58])
    for o in (1, 8, 10, 11, 26, 27, 32):
        m[o] = 0xFF
    f[58:62] = struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)))
    return bytes(f)


def check(wire, n):
    """One ACK per advance of the slowest receiver, in order, never beyond it; strangers get nothing through."""
    listener = wire.listen()
    wire.send_data(COUNT)
    # receivers acknowledge at their own paces, interleaved, cumulatively
    rnd = random.Random(20261201)
    acked = {r: START - 1 for r in range(n)}
    frames, expected_min = [], []
    running_min = START - 1
    while min(acked.values()) < START + COUNT - 1:
        r = rnd.randrange(n)
        if acked[r] >= START + COUNT - 1:
            continue
        acked[r] = min(START + COUNT - 1, acked[r] + rnd.randint(1, 6))
        frames.append(wire.ack(r, acked[r]))
        m = min(acked.values())
        if m > running_min:
            expected_min.append(m)
            running_min = m
    forged = [Ether(dst=wire.sender_mac, src=wire.fabric_mac) / IP(src="10.98.9.9", dst=VP_IP)
              / UDP(sport=49152, dport=4791) / BTH(opcode=0x11, dqpn=0x100, psn=START + COUNT - 1)
              / AETH(syndrome=0, msn=0),
              wire.ack(0, START + COUNT + 5)]
    wire.from_fabric(forged[:1] + frames + forged[1:])
    got = wire.heard(listener)
    ok = got == expected_min
    print("agg-wire: receivers=%d acks_in=%d acks_out=%d advances=%d beyond_min=%d strays_passed=%d %s" % (
        n, len(frames), len(got), len(expected_min),
        sum(1 for g, e in zip(got, expected_min) if g > e), max(0, len(got) - len(expected_min)),
        "ok" if ok else "MISMATCH got %s want %s" % (got[:20], expected_min[:20])))
    return 0 if ok else 1


def prog_stats(prog):
    """The kernel's own account of the attached program (kernel.bpf_stats_enabled): runs and ns spent in them."""
    info = json.loads(sh("bpftool", "-j", "prog", "show", "pinned", prog.prog).stdout)
    return info.get("run_cnt", 0), info.get("run_time_ns", 0)


def bench(wire, n, count):
    """Per-packet cost of the attached program on real packets, warm, as the kernel accounts it: a stream in which
    every ACK advances the minimum and is rewritten for the sender (the receivers a PSN apart, the slowest one
    acknowledging each time), one in which no ACK does, and frames the program passes at once."""
    # a staggered start: receiver r has acknowledged START + r; then the slowest acknowledges n ahead, each time
    span = count + count // (n - 1) + 2 * n + 16
    wire.send_data(span)
    acked = [START + r for r in range(n)]
    setup = wire.acks((r, acked[r]) for r in range(n))
    pairs = []
    for k in range(count):
        r = k % n
        acked[r] += n
        pairs.append((r, acked[r]))
    advancing = wire.acks(pairs)
    # then the slowest stops, and every other receiver moves on by one PSN in turn: no ACK frees the minimum
    slow, pairs, k = count % n, [], 0
    while len(pairs) < count:
        r = k % n
        k += 1
        if r != slow:
            acked[r] += 1
            pairs.append((r, acked[r]))
    still = wire.acks(pairs)
    # a stranger's ACK (a member's QPN from an address the group does not have): ICRC checked, dropped, counted
    stranger = wire.acks(((1, acked[1]),) * count, src="10.98.9.9")
    passing = [bytes(Ether(dst=wire.sender_mac, src=wire.fabric_mac, type=0x88B6) / Raw(b"\0" * 48))] * count
    wire.from_fabric(setup)
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    # each stream in slices of SLICE frames, interleaved with the others' where the state allows (the ACKs that do
    # not move the minimum come after the ones that do), so a slow moment of the machine spreads over all; the
    # median slice of each is reported
    cut = lambda frames: [frames[i:i + SLICE] for i in range(0, len(frames), SLICE)]
    order = [(k, f) for parts in zip(cut(advancing), cut(stranger), cut(passing)) for k, f in
             zip(("advancing", "stranger", "passed"), parts)]
    order += [(k, f) for parts in zip(cut(still), cut(passing)) for k, f in zip(("not_advancing", "passed"), parts)]
    runs = {k: 0 for k in ("advancing", "not_advancing", "stranger", "passed")}
    per = {k: [] for k in runs}
    listener = wire.listen()
    try:
        sh("sysctl", "-qw", "kernel.bpf_stats_enabled=1")
        for name, frames in order:
            c0, t0 = prog_stats(wire.prog)
            wire.from_fabric(frames)
            c1, t1 = prog_stats(wire.prog)
            runs[name] += c1 - c0
            per[name].append((t1 - t0) / max(1, c1 - c0))
    finally:
        sh("sysctl", "-qw", "kernel.bpf_stats_enabled=" + old)
    got = wire.heard(listener)
    med = {k: sorted(v)[len(v) // 2] for k, v in per.items()}
    # every advancing ACK frees the minimum by one: START + 1 ... START + count
    want = list(range(START + 1, START + count + 1))
    # (a few more runs than frames: the interface's own traffic, an IPv6 solicitation or two)
    want_runs = {"advancing": count, "not_advancing": count, "stranger": count, "passed": 2 * count}
    ok = got == want and all(want_runs[k] <= runs[k] <= want_runs[k] + 16 for k in runs)
    print("agg-wire-bench: N=%d, %d real frames a stream in slices of %d, the kernel's run time of the attached "
          "program (kernel.bpf_stats_enabled), median slice: ACK that advances the minimum and is rewritten %.0f ns "
          "| ACK not moving the minimum %.0f ns | stranger's ACK %.0f ns | frame passed at once %.0f ns (baseline) "
          "| aggregated ACKs %d of %d %s" % (
              n, count, SLICE, med["advancing"], med["not_advancing"], med["stranger"], med["passed"],
              len(got), count, "ok" if ok else "MISMATCH runs %s got %s" % (runs, got[:8])))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--object", required=True)
    ap.add_argument("--receivers", type=int, default=8)
    ap.add_argument("--bench", type=int, metavar="COUNT", default=0,
                    help="measure the per-packet cost on COUNT real frames a stream instead")
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("agg-wire: must run as root")
    wire = Wire(a.object, a.receivers)
    try:
        return bench(wire, a.receivers, a.bench) if a.bench else check(wire, a.receivers)
    finally:
        wire.close()


# the sender's side, in its namespace: a UDP socket on 4791 printing the PSN of every ACK that reaches it
LISTEN = r'''
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)   # SO_RCVBUFFORCE: a stream at a raw socket's pace
s.bind(("0.0.0.0", 4791))
s.settimeout(5)
try:
    while True:
        d, _ = s.recvfrom(4096)
        if d[0] == 0x11:
            print(int.from_bytes(d[9:12], "big"), flush=True)
except Exception:
    pass
'''

# the sender's data to the VP, through its kernel (so the program sees it leave); the ICRC is not checked here
SEND = r'''
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
vp, start, count = "%s", %d, %d
for i in range(count):
    psn = start + i
    bth = bytes([0x04, 0, 0xff, 0xff, 0, 0, 0x04, 0x00, 0x80]) + psn.to_bytes(3, "big")
    s.sendto(bth + b"d" * 32 + b"\0\0\0\0", (vp, 4791))
'''

# the fabric's side without target/blast: the frames of a file (each after its 2-byte length), one raw socket
BLAST = r'''
import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((%r, 0))
data = open(%r, "rb").read()
i = 0
while i < len(data):
    (n,) = struct.unpack_from("<H", data, i)
    s.send(data[i + 2:i + 2 + n])
    i += 2 + n
'''

if __name__ == "__main__":
    sys.exit(main())
