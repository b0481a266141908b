#!/usr/bin/python3
"""The ACK aggregator on a real interface, with real packets.

A veth pair: the sender's end in this namespace, the fabric's end in another; the program attached to the sender's
interface in both directions (the same pinned instance the agent configures through BPF_PROG_RUN). The sender's kernel sends its
data to the virtual peer through a UDP socket (so the program sees it leave); N receivers' ACKs, at their own
paces, arrive from the fabric side; the sender's own UDP socket on port 4791 gets what the program lets through.
It must be exactly one ACK per advance of the slowest receiver, in order, never beyond it, each a valid RoCEv2
frame; a stranger's forged ACK and an ACK for a PSN never sent get nothing through.

  agg_wire.py --object target/ack_agg.o [--receivers 8]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

from scapy.all import Ether, IP, UDP  # noqa: E402
from scapy.contrib.roce import BTH, AETH  # noqa: E402

import agg_vectors as av

NS, SENDER_IF, FABRIC_IF = "m4agg", "m4agg-s", "m4agg-f"
SENDER_IP, VP_IP = "10.98.0.1", "10.98.0.64"      # VP .64: group index 0 in the program
START, COUNT = 1000, 64


def sh(*cmd):
    return subprocess.run(list(cmd), check=True, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--object", required=True)
    ap.add_argument("--receivers", type=int, default=8)
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("agg-wire: must run as root")
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    subprocess.run(["ip", "link", "del", SENDER_IF], capture_output=True)
    prog = av.Program(a.object)
    try:
        sh("ip", "netns", "add", NS)
        sh("ip", "link", "add", SENDER_IF, "type", "veth", "peer", "name", FABRIC_IF, "netns", NS)
        sh("ip", "link", "set", SENDER_IF, "up")
        sh("ip", "-n", NS, "link", "set", FABRIC_IF, "up")
        sh("ip", "addr", "add", SENDER_IP + "/24", "dev", SENDER_IF)
        sender_mac = open("/sys/class/net/%s/address" % SENDER_IF).read().strip()
        fabric_mac = sh("ip", "-n", NS, "-br", "link", "show", FABRIC_IF).stdout.split()[2]
        sh("ip", "neigh", "replace", VP_IP, "lladdr", fabric_mac, "dev", SENDER_IF)
        sh("tc", "qdisc", "add", "dev", SENDER_IF, "clsact")
        for d in ("ingress", "egress"):
            sh("tc", "filter", "add", "dev", SENDER_IF, d, "bpf", "direct-action", "object-pinned", prog.prog)
        # the agent: configure group 0 (VP .64) and its receivers, through BPF_PROG_RUN
        av.SENDER_IP, av.SENDER_MAC = SENDER_IP, sender_mac
        prog.set_clock(0)
        prog.run(av.control(av.CONFIG, 0, ip=VP_IP, psn=START, stall_ns=10 ** 12, cnp_ns=0, holdoff_ns=0))
        receivers = [("10.98.1.%d" % (r + 1), 0x100 + r) for r in range(a.receivers)]
        for ip, qpn in receivers:
            prog.run(av.control(av.JOIN, 0, ip=ip, qpn=qpn, psn=START))
        # the sender's socket for what comes back (inside its namespace), and its data going out
        listener = subprocess.Popen(["/usr/bin/python3", "-c", LISTEN], stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        sh("/usr/bin/python3", "-c", SEND % (VP_IP, START, COUNT))
        # receivers acknowledge at their own paces, interleaved, cumulatively
        rnd = random.Random(20261201)
        acked = {r: START - 1 for r in range(a.receivers)}
        frames, expected_min = [], []
        running_min = START - 1
        while min(acked.values()) < START + COUNT - 1:
            r = rnd.randrange(a.receivers)
            if acked[r] >= START + COUNT - 1:
                continue
            acked[r] = min(START + COUNT - 1, acked[r] + rnd.randint(1, 6))
            ip, qpn = receivers[r]
            frames.append(Ether(dst=sender_mac, src=fabric_mac) / IP(src=ip, dst=VP_IP)
                          / UDP(sport=49152, dport=4791) / BTH(opcode=0x11, dqpn=qpn, psn=acked[r])
                          / AETH(syndrome=0, msn=0))
            m = min(acked.values())
            if m > running_min:
                expected_min.append(m)
                running_min = m
        forged = [Ether(dst=sender_mac, src=fabric_mac) / IP(src="10.98.9.9", dst=VP_IP)
                  / UDP(sport=49152, dport=4791) / BTH(opcode=0x11, dqpn=0x100, psn=START + COUNT - 1)
                  / AETH(syndrome=0, msn=0),
                  Ether(dst=sender_mac, src=fabric_mac) / IP(src=receivers[0][0], dst=VP_IP)
                  / UDP(sport=49152, dport=4791) / BTH(opcode=0x11, dqpn=receivers[0][1], psn=START + COUNT + 5)
                  / AETH(syndrome=0, msn=0)]
        pcap = tempfile.mktemp(suffix=".pcap")
        from scapy.all import wrpcap
        wrpcap(pcap, forged[:1] + frames + forged[1:])
        sh("ip", "netns", "exec", NS, "/usr/bin/python3", "-c",
           "from scapy.all import rdpcap, sendp; sendp(rdpcap(%r), iface=%r, verbose=False)" % (pcap, FABRIC_IF))
        os.unlink(pcap)
        time.sleep(1.0)
        listener.terminate()
        got = [int(x) for x in listener.communicate()[0].split()]
        ok = got == expected_min
        print("agg-wire: receivers=%d acks_in=%d acks_out=%d advances=%d beyond_min=%d strays_passed=%d %s" % (
            a.receivers, len(frames), len(got), len(expected_min),
            sum(1 for g, e in zip(got, expected_min) if g > e), max(0, len(got) - len(expected_min)),
            "ok" if ok else "MISMATCH got %s want %s" % (got[:20], expected_min[:20])))
        return 0 if ok else 1
    finally:
        subprocess.run(["ip", "link", "del", SENDER_IF], capture_output=True)
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        prog.close()


# the sender's side, in its namespace: a UDP socket on 4791 printing the PSN of every ACK that reaches it
LISTEN = r'''
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
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

if __name__ == "__main__":
    sys.exit(main())
