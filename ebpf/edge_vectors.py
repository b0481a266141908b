#!/usr/bin/python3
"""Checks the receiver-edge rewrite: known answers through BPF_PROG_TEST_RUN, then real packets on a veth pair.

A group's copy (multicast IPv4 to the group address, the virtual peer's QPN) must leave as the unicast frame an
unmodified RC responder accepts: the receiver's MAC, IP and QPN, the virtual peer as source, everything else as
it came, and an IPv4 checksum and RoCEv2 ICRC equal byte for byte to the ones scapy computes for that frame.

  edge_vectors.py --object target/edge_rewrite.o
"""
import argparse
import ipaddress
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from scapy.all import Ether, IP, UDP, Raw, raw, rdpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

GROUP = "239.77.0.7"
VP_IP = "10.99.0.7"
SENDER = "10.77.1.1"
RX = {"mac": "02:00:00:00:02:01", "ip": "10.77.2.1", "qpn": 0x1234}
VP_QPN = 0x400


def copy(payload_len, psn, group=GROUP, tos=0x02, ttl=61):
    """A copy of the group's data as the fabric delivers it to the receiver's port."""
    return raw(Ether(dst="01:00:5e:4d:00:07", src="02:00:00:00:00:11")
               / IP(src=SENDER, dst=group, tos=tos, ttl=ttl, id=4242, flags="DF")
               / UDP(sport=49152, dport=4791)
               / BTH(opcode=0x04, dqpn=VP_QPN, psn=psn, ackreq=1)
               / Raw(bytes((i * 7) & 0xFF for i in range(payload_len))))


def rewritten(frame):
    """What the receiver must get, built by scapy from the copy: addresses and QPN changed, checksums new."""
    p = Ether(frame)
    p[Ether].dst = RX["mac"]
    p[IP].src = VP_IP
    p[IP].dst = RX["ip"]
    del p[IP].chksum
    p[UDP].chksum = 0
    p[BTH].dqpn = RX["qpn"]
    p[BTH].icrc = None
    return raw(p)


def receiver_value():
    return (bytes(int(x, 16) for x in RX["mac"].split(":")) + b"\0\0" + ipaddress.ip_address(RX["ip"]).packed
            + struct.pack("<I", RX["qpn"]) + ipaddress.ip_address(VP_IP).packed)


def key(group, ifindex):
    return ipaddress.ip_address(group).packed + struct.pack("<I", ifindex)


def hexargs(b):
    return ["%02x" % x for x in b]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def vectors(obj, pin):
    prog = os.path.join(pin, "prog")
    maps = os.path.join(pin, "maps")
    os.mkdir(maps)
    run(["bpftool", "prog", "load", obj, prog, "type", "classifier", "pinmaps", maps])
    # BPF_PROG_TEST_RUN runs a classifier on loopback: ifindex 1
    run(["bpftool", "map", "update", "pinned", os.path.join(maps, "edge_receivers"), "key", "hex"]
        + hexargs(key(GROUP, 1)) + ["value", "hex"] + hexargs(receiver_value()))
    tmp = tempfile.mkdtemp()
    failures = 0
    cases = 0
    try:
        for size, psn in ((0, 0), (1, 5), (16, 0xFFFFFF), (255, 77), (1024, 123456), (1400, 9)):
            for frame, want, what in ((copy(size, psn), None, "copy of %d bytes, PSN %d" % (size, psn)),
                                      (copy(size, psn, group="239.77.0.8"), "same", "another group's copy"),
                                      (copy(size, psn, tos=0xB8, ttl=1), None, "DSCP and TTL kept, masked in ICRC")):
                cases += 1
                fin, fout = os.path.join(tmp, "in"), os.path.join(tmp, "out")
                open(fin, "wb").write(frame)
                r = run(["bpftool", "prog", "run", "pinned", prog, "data_in", fin, "data_out", fout])
                rv = int(re.search(r"Return value: (\d+)", r.stdout).group(1))
                out = open(fout, "rb").read()
                expect = frame if want == "same" else rewritten(frame)
                if rv != 0 or out != expect:
                    failures += 1
                    print("edge-vectors: FAIL %s: verdict %d\n  got  %s\n  want %s" % (what, rv, out.hex(),
                                                                                       expect.hex()))
    finally:
        shutil.rmtree(tmp)
    print("edge-vectors: %d known answers, %d failed" % (cases, failures))
    return prog, failures


def real_packets(prog):
    """A veth pair: the program on the switch side's egress, the receiver in a namespace capturing."""
    ns, a, b = "m4edge", "m4edge-sw", "m4edge-rx"
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    subprocess.run(["ip", "link", "del", a], capture_output=True)
    pcap = tempfile.mktemp(suffix=".pcap")
    try:
        run(["ip", "netns", "add", ns])
        run(["ip", "link", "add", a, "type", "veth", "peer", "name", b, "netns", ns])
        run(["ip", "link", "set", a, "up"])
        run(["ip", "-n", ns, "link", "set", b, "up"])
        ifindex = int(open("/sys/class/net/%s/ifindex" % a).read())
        maps = os.path.join(os.path.dirname(prog), "maps", "edge_receivers")
        run(["bpftool", "map", "update", "pinned", maps, "key", "hex"] + hexargs(key(GROUP, ifindex))
            + ["value", "hex"] + hexargs(receiver_value()))
        run(["tc", "qdisc", "add", "dev", a, "clsact"])
        run(["tc", "filter", "add", "dev", a, "egress", "bpf", "direct-action", "object-pinned", prog])
        cap = subprocess.Popen(["ip", "netns", "exec", ns, "tcpdump", "-i", b, "-U", "-w", pcap, "udp port 4791"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        frames = [copy(64 + 10 * i, 1000 + i) for i in range(20)]
        from scapy.all import sendp
        sendp([Ether(f) for f in frames], iface=a, verbose=False)
        time.sleep(1.0)
        cap.terminate()
        cap.wait()
        got = [raw(p) for p in rdpcap(pcap)]
        want = [rewritten(f) for f in frames]
        ok = got == want
        print("edge-real: %d copies sent through %s egress, %d received in %s, %s" % (
            len(frames), a, len(got), ns, "every one the receiver's frame with a valid ICRC" if ok
            else "MISMATCH"))
        if not ok:
            for g, w in zip(got, want):
                if g != w:
                    print("  got  %s\n  want %s" % (g.hex(), w.hex()))
                    break
        return 0 if ok else 1
    finally:
        subprocess.run(["ip", "link", "del", a], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        if os.path.exists(pcap):
            os.unlink(pcap)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--object", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("edge-vectors: must run as root")
    if not os.path.ismount("/sys/fs/bpf"):
        subprocess.run(["mount", "-t", "bpf", "bpf", "/sys/fs/bpf"], check=True)
    pin = tempfile.mkdtemp(prefix="mcast4ai-edge-", dir="/sys/fs/bpf")
    try:
        prog, failures = vectors(a.object, pin)
        return 1 if failures or real_packets(prog) else 0
    finally:
        shutil.rmtree(pin, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
