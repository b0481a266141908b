#!/usr/bin/python3
"""Replays the ACK-aggregation known-answer vectors through the eBPF program with BPF_PROG_TEST_RUN.

Every case runs on its own group of one loaded program (its own virtual peer address); each step is one
frame: the agent's control frames (CONFIG, JOIN, LEAVE, TICK, EVICT), the sender's data, receivers' ACKs,
NAKs and CNPs, built with scapy (a step marked "icrc": "bad" has one bit of its ICRC flipped). For each step
the program's drops and stalls (its event ring) and the packet it passes on to the sender must be exactly the
vector's outputs, and that packet a valid RoCEv2 frame from the virtual peer to the sender (IPv4 checksum and
ICRC as scapy computes them).

  agg_vectors.py --object target/ack_agg.o --vectors ../models/reliable/ack-aggregation.json
  agg_vectors.py --object target/ack_agg.o --bench        per-packet cost, N = 32, 256 and 1,024
"""
import argparse
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from scapy.all import Ether, IP, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH, AETH, cnp  # noqa: E402

CTRL_ETHERTYPE = 0x88B5
CONFIG, JOIN, LEAVE, TICK, EVICT = 1, 2, 3, 4, 5
EVENTS = {1: "NON_MEMBER", 2: "BEYOND_SENT", 3: "NAK_REPEATED", 4: "CNP_RATE", 5: "STALLED", 6: "BAD_ICRC"}
RING = 64
TC_ACT_OK, TC_ACT_SHOT, TC_ACT_PIPE, TC_ACT_STOLEN = 0, 2, 3, 4
SENDER_IP, SENDER_QPN, SENDER_MAC = "10.0.0.1", 0x33, "02:00:00:00:00:01"
VP_MAC = "02:00:00:00:99:99"
VP_SEND_QPN = 0x400      # the virtual peer's QPN the sender's QP connects to
TOKEN = 0x6d63617374346169
MS = 1_000_000


class Program:
    """One loaded, pinned instance of the program and its maps."""

    def __init__(self, obj):
        self.dir = tempfile.mkdtemp(prefix="mcast4ai-agg-", dir="/sys/fs/bpf")
        self.prog = os.path.join(self.dir, "prog")
        self.maps = os.path.join(self.dir, "maps")
        os.mkdir(self.maps)
        self.tmp = tempfile.mkdtemp(prefix="mcast4ai-agg-")
        r = subprocess.run(["bpftool", "prog", "load", obj, self.prog, "type", "classifier", "pinmaps", self.maps],
                           capture_output=True, text=True)
        if r.returncode != 0:
            tail = "\n".join(r.stderr.splitlines()[-8:])
            raise SystemExit("agg-vectors: the verifier refused the program:\n" + tail)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, frame, repeat=1):
        """Runs the program on a frame: (return value, the frame it left, average ns)."""
        fin = os.path.join(self.tmp, "in")
        fout = os.path.join(self.tmp, "out")
        with open(fin, "wb") as f:
            f.write(frame)
        if os.path.exists(fout):
            os.unlink(fout)
        args = ["bpftool", "prog", "run", "pinned", self.prog, "data_in", fin, "data_out", fout]
        if repeat > 1:
            args += ["repeat", str(repeat)]
        r = subprocess.run(args, capture_output=True, text=True, check=True)
        rv = int(re.search(r"Return value: (\d+)", r.stdout).group(1))
        ns = int(re.search(r"duration(?: \(average\))?: (\d+)ns", r.stdout).group(1))
        out = open(fout, "rb").read() if os.path.exists(fout) else b""
        return rv, out, ns

    def _map(self, name):
        return os.path.join(self.maps, name)

    def set_clock(self, ns):
        subprocess.run(["bpftool", "map", "update", "pinned", self._map("agg_clock"), "key", "hex", "00", "00", "00",
                        "00", "value", "hex"] + ["%02x" % b for b in struct.pack("<Q", ns)], check=True)

    def lookup(self, name, key):
        r = subprocess.run(["bpftool", "-j", "map", "lookup", "pinned", self._map(name), "key", "hex"]
                           + ["%02x" % b for b in key], capture_output=True, text=True)
        if r.returncode != 0:
            return None
        value = json.loads(r.stdout)["value"]
        return bytes(int(b, 16) for b in value)

    def events(self, group):
        v = self.lookup("agg_events", struct.pack("<I", group))
        head = struct.unpack_from("<I", v, 0)[0]
        return head, [struct.unpack_from("<II", v, 8 + 8 * i) for i in range(RING)]



def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def control(op, group, ip="0.0.0.0", qpn=0, psn=0, sees_data=1, stall_ns=0, cnp_ns=0, holdoff_ns=0,
            group_ip="0.0.0.0"):
    payload = struct.pack("<BBHIQ4sII4sI6s6sQQQ4s", op, sees_data, 0, group, TOKEN, ipaddress.ip_address(ip).packed,
                          qpn, psn, ipaddress.ip_address(SENDER_IP).packed, SENDER_QPN, mac(SENDER_MAC),
                          mac(VP_MAC), stall_ns, cnp_ns, holdoff_ns, ipaddress.ip_address(group_ip).packed)
    return raw(Ether(dst=VP_MAC, src=VP_MAC, type=CTRL_ETHERTYPE) / Raw(payload))


def roce(src, vp, bth):
    return raw(Ether(dst=VP_MAC, src="02:00:00:00:00:%02x" % (int(ipaddress.ip_address(src)) & 0xff))
               / IP(src=src, dst=vp) / UDP(sport=49152, dport=4791) / bth)


EMITTED = []


def tshark_agrees():
    """Decodes every frame passed on to the sender with tshark (an independent dissector): its opcode, QPN, PSN,
    syndrome and MSN must be what the replay read."""
    if not EMITTED or shutil.which("tshark") is None:
        return "tshark: not run" if EMITTED else "tshark: no frames"
    from scapy.all import wrpcap
    pcap = tempfile.mktemp(suffix=".pcap")
    wrpcap(pcap, [Ether(f) for f, _ in EMITTED])
    r = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "infiniband.bth.opcode", "-e",
                        "infiniband.bth.destqp", "-e", "infiniband.bth.psn", "-e", "infiniband.aeth.syndrome", "-e",
                        "infiniband.aeth.msn"], capture_output=True, text=True)
    os.unlink(pcap)
    rows = [line.split("\t") for line in r.stdout.strip().splitlines()]
    if len(rows) != len(EMITTED):
        return "tshark: decoded %d of %d frames" % (len(rows), len(EMITTED))
    for (frame, read), row in zip(EMITTED, rows):
        opcode, qpn, psn = int(row[0]), int(row[1], 16), row[2]
        if qpn != SENDER_QPN:
            return "tshark: QPN %s in %s" % (row[1], read)
        if read == "cnp":
            if opcode != 0x81:
                return "tshark: opcode %d for a CNP" % opcode
            continue
        kind, p, _, msn, _, last = read.split()
        syndrome = int(last) if kind == "ack" else int(last, 16)
        if opcode != 0x11 or int(psn) != int(p) or int(row[4]) != int(msn) or int(row[3]) != syndrome:
            return "tshark: %s decoded as %s" % (read, row)
    return "tshark: %d frames agree" % len(EMITTED)


def check_frame(out, vp):
    """The packet for the sender, decoded; fails unless it is a well-formed RoCEv2 frame VP -> sender."""
    p = Ether(out)
    assert p[IP].src == vp and p[IP].dst == SENDER_IP, p.summary()
    assert p[BTH].dqpn == SENDER_QPN, p[BTH].dqpn
    again = p.copy()
    del again[IP].chksum
    again[BTH].icrc = None
    assert raw(again) == out, "checksum or ICRC differ from scapy's: %s" % out.hex()
    if p[BTH].opcode == 0x81:
        read = "cnp"
    elif p[AETH].syndrome & 0xE0 == 0:
        read = "ack %d msn %d credit %d" % (p[BTH].psn, p[AETH].msn, p[AETH].syndrome & 0x1F)
    else:
        read = "nak %d msn %d syndrome %x" % (p[BTH].psn, p[AETH].msn, p[AETH].syndrome)
    EMITTED.append((out, read))
    return read


def readdressed(prog):
    """The sender's data leaves addressed to the group with its ICRC updated, not computed again: valid as scapy
    computes it for the new address (payloads of 0 to 1,400 bytes), and a frame damaged before the program keeps
    exactly its error. Returns the failures."""
    group, vp, group_ip = 63, vp_of(63), "239.77.0.63"
    prog.run(control(CONFIG, group, ip=vp, psn=7000, sees_data=0, group_ip=group_ip))
    failures = []
    for n in (0, 1, 16, 255, 1024, 1400):
        bth = BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=7000 + n)
        frame = roce(SENDER_IP, vp, bth / Raw((bytes(range(256)) * 6)[:n]) if n else bth)
        for damaged in (False, True):
            f = bytearray(frame)
            if damaged:
                f[-5] ^= 0x10
            rv, out, _ = prog.run(bytes(f))
            p = Ether(out)
            want = p.copy()
            del want[IP].chksum
            want[BTH].icrc = None
            good = raw(want)
            if rv != TC_ACT_OK or p[IP].dst != group_ip:
                failures.append("  data of %d bytes not readdressed (%d, %s)" % (n, rv, p[IP].dst))
            elif not damaged and good != out:
                failures.append("  data of %d bytes: ICRC %s, scapy's %s" % (n, out[-4:].hex(), good[-4:].hex()))
            elif damaged:
                # the damage's error: what scapy's ICRC over the frame's bytes differs by, before and after
                before = Ether(bytes(f))
                b = before.copy()
                b[BTH].icrc = None
                err_in = int.from_bytes(raw(b)[-4:], "little") ^ int.from_bytes(bytes(f)[-4:], "little")
                err_out = int.from_bytes(good[-4:], "little") ^ int.from_bytes(out[-4:], "little")
                if err_in == 0 or err_in != err_out:
                    failures.append("  damaged data of %d bytes: error %08x in, %08x out" % (n, err_in, err_out))
    return failures


def expected(o):
    if "ack" in o:
        return "ack %d msn %d credit %d" % (o["ack"], o["msn"], o["credit"])
    if "nak" in o:
        return "nak %d msn %d syndrome %x" % (o["nak"], o["msn"], o["syndrome"])
    if "cnp" in o:
        return "cnp"
    if "drop" in o:
        return "drop " + o["drop"]
    return "stalled " + o["stalled"]


MAX_RX = 1024


def vp_of(group):
    """A group's virtual peer: the address's low six bits are the group's index in the program."""
    return "10.99.0.%d" % (64 + group)


def normal(outs):
    """The stall reports of one step in any order: the specification does not order receivers."""
    out, run = [], []
    for o in outs + [None]:
        if o is not None and o.startswith("stalled "):
            run.append(o)
            continue
        out += sorted(run)
        run = []
        if o is not None:
            out.append(o)
    return out


def replay(prog, group, case):
    vp = vp_of(group)
    names = {}
    endpoints = {}
    for part in ("receivers", "strangers", "more"):
        for n, e in case.get(part, {}).items():
            endpoints[n] = (e["ip"], e["qpn"])
    prog.set_clock(1)
    start = case["startPsn"]
    rv, _, _ = prog.run(control(CONFIG, group, ip=vp, psn=start, sees_data=1 if case["seesData"] else 0,
                                stall_ns=case["stallMs"] * MS, cnp_ns=case["cnpIntervalMs"] * MS,
                                holdoff_ns=case["nakHoldoffMs"] * MS))

    def join(n, psn):
        ip, qpn = endpoints[n]
        prog.run(control(JOIN, group, ip=ip, qpn=qpn, psn=psn))
        names[qpn % MAX_RX] = n

    for n in case["receivers"]:
        join(n, start)
    head, _ = prog.events(group)
    failures = []
    for i, step in enumerate(case["steps"]):
        prog.set_clock(1 + step.get("t", 0) * MS)
        kind = step["in"]
        outs = []
        if kind == "data":
            for p in range(step["psn"], step["to"] + 1):
                rv, _, _ = prog.run(roce(SENDER_IP, vp, BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=p) / Raw(b"x" * 16)))
                if rv != TC_ACT_OK:
                    outs.append("data not passed on (%d)" % rv)
            frame = None
        elif kind in ("ack", "nak"):
            ip, qpn = endpoints[step["from"]]
            syndrome = step.get("syndrome", step.get("credit", 0)) if kind == "nak" else step.get("credit", 0)
            frame = roce(ip, vp, BTH(opcode=0x11, dqpn=qpn, psn=step["psn"])
                         / AETH(syndrome=syndrome, msn=step.get("msn", 0)))
        elif kind == "cnp":
            ip, qpn = endpoints[step["from"]]
            frame = roce(ip, vp, cnp(qpn))
        elif kind == "tick":
            frame = control(TICK, group)
        elif kind == "join":
            join(step["who"], step["psn"])
            frame = None
        elif kind in ("leave", "evict"):
            ip, qpn = endpoints[step["who"]]
            frame = control(LEAVE if kind == "leave" else EVICT, group, ip=ip, qpn=qpn)
        else:
            raise SystemExit("unknown input " + kind)
        if frame is not None and step.get("icrc") == "bad":
            frame = frame[:-1] + bytes([frame[-1] ^ 0x01])
        packet = None
        if frame is not None:
            rv, out, _ = prog.run(frame)
            # the stall check works one chunk of receivers per run: the agent runs it again while it says so
            for _ in range(64):
                if kind != "tick" or rv != TC_ACT_PIPE:
                    break
                rv, out, _ = prog.run(frame)
            if rv == TC_ACT_OK:
                try:
                    packet = check_frame(out, vp)
                except AssertionError as e:
                    packet = "BAD FRAME: %s" % e
            elif rv not in (TC_ACT_SHOT, TC_ACT_STOLEN):
                packet = "verdict %d" % rv
        new_head, ring = prog.events(group)
        for h in range(head, new_head):
            t, slot = ring[h % RING]
            outs.append("stalled " + names.get(slot, "?") if t == 5 else "drop " + EVENTS.get(t, str(t)))
        head = new_head
        if packet:
            outs.append(packet)
        want = [expected(o) for o in step["out"]]
        if normal(outs) != normal(want):
            failures.append("  step %d %s: got %s, want %s" % (i, json.dumps(step), outs, want))
    return failures


def bench(prog):
    """Per-packet cost of the common paths, through BPF_PROG_TEST_RUN's repeat (the kernel's own timing)."""
    print("agg-bench: BPF_PROG_TEST_RUN, 1,000,000 runs each, average ns per packet (kernel's timing)")
    for group, n in ((59, 32), (60, 256), (61, 1024)):
        vp = vp_of(group)
        prog.set_clock(1)
        prog.run(control(CONFIG, group, ip=vp, psn=1000, stall_ns=10 ** 12, cnp_ns=0, holdoff_ns=0))
        for r in range(n):
            prog.run(control(JOIN, group, ip="10.1.%d.%d" % (r // 250, 1 + r % 250), qpn=0x100 + r, psn=1000))
        for p in range(1000, 1100):
            prog.run(roce(SENDER_IP, vp, BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=p) / Raw(b"x" * 16)))
        ack = roce("10.1.0.1", vp, BTH(opcode=0x11, dqpn=0x100, psn=1050) / AETH(syndrome=0, msn=0))
        prog.run(ack)
        _, _, dup = prog.run(ack, repeat=1_000_000)
        data = roce(SENDER_IP, vp, BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=1100) / Raw(b"x" * 16))
        _, _, d = prog.run(data, repeat=1_000_000)
        stranger = roce("10.2.0.1", vp, BTH(opcode=0x11, dqpn=0x100, psn=1050) / AETH(syndrome=0, msn=0))
        _, _, s = prog.run(stranger, repeat=1_000_000)
        tick = control(TICK, group)
        _, _, t = prog.run(tick, repeat=1_000_000)
        # (a path that rewrites cannot be timed by repetition: BPF_PROG_TEST_RUN reruns on the rewritten frame)
        print("agg-bench: N=%-4d ACK not moving the minimum %4d ns | sender data %4d ns | stranger's ACK %4d ns "
              "| stall check %4d ns" % (n, dup, d, s, t))
    # the baseline in the same run: a frame the program lets through at once (not IPv4)
    _, _, base = prog.run(raw(Ether(dst=VP_MAC, type=0x0806) / Raw(b"\0" * 48)), repeat=1_000_000)
    # the path that rewrites: one receiver, every ACK a new PSN, each one an aggregated ACK with its ICRC;
    # distinct frames, so single runs (the kernel's timing of each), median of 300
    group, vp = 62, vp_of(62)
    prog.run(control(CONFIG, group, ip=vp, psn=5000, stall_ns=10 ** 12))
    prog.run(control(JOIN, group, ip="10.1.9.1", qpn=0x200, psn=5000))
    for p in range(5000, 5400):
        prog.run(roce(SENDER_IP, vp, BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=p) / Raw(b"x" * 16)))
    single = []
    for p in range(5000, 5300):
        rv, out, ns = prog.run(roce("10.1.9.1", vp, BTH(opcode=0x11, dqpn=0x200, psn=p) / AETH(syndrome=0, msn=0)))
        if rv != TC_ACT_OK or check_frame(out, vp) != "ack %d msn 0 credit 0" % p:
            raise SystemExit("agg-bench: the advancing ACK %d was not passed on right" % p)
        single.append(ns)
    single.sort()
    other = sorted(prog.run(raw(Ether(dst=VP_MAC, type=0x0806) / Raw(b"\0" * 48)))[2] for _ in range(300))
    print("agg-bench: baseline, a frame passed at once: %d ns (repeated), %d ns (median of 300 single runs)"
          % (base, other[len(other) // 2]))
    print("agg-bench: an ACK that advances the minimum and is rewritten for the sender (IPv4 checksum, ICRC): "
          "median %d ns of 300 single runs" % single[len(single) // 2])
    # the sender's data readdressed to the group, its ICRC updated over the bytes after the address
    group, vp = 58, vp_of(58)
    prog.run(control(CONFIG, group, ip=vp, psn=9000, sees_data=0, group_ip="239.77.0.58"))
    for n in (16, 1024):
        times = sorted(prog.run(roce(SENDER_IP, vp, BTH(opcode=0x04, dqpn=VP_SEND_QPN, psn=9000 + k)
                                     / Raw(b"x" * n)))[2] for k in range(300))
        print("agg-bench: sender data readdressed to the group, ICRC updated, %4d-byte payload: median %d ns of 300 "
              "single runs" % (n, times[len(times) // 2]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--object", required=True)
    ap.add_argument("--vectors", action="append", default=[])
    ap.add_argument("--bench", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("agg-vectors: must run as root (loads a BPF program)")
    if not os.path.ismount("/sys/fs/bpf"):
        subprocess.run(["mount", "-t", "bpf", "bpf", "/sys/fs/bpf"], check=True)
    prog = Program(a.object)
    try:
        if a.bench:
            bench(prog)
            return 0
        cases = [c for v in a.vectors for c in json.load(open(v))["cases"]]
        failed = 0
        for g, case in enumerate(cases):
            failures = replay(prog, g, case)
            print("agg-vectors: %-4s %s" % ("ok" if not failures else "FAIL", case["name"]))
            for f in failures:
                print(f)
            failed += bool(failures)
        agree = tshark_agrees()
        icrc = readdressed(prog)
        print("agg-vectors: data readdressed to the group, ICRC updated: %s" % ("ok" if not icrc else "FAIL"))
        for f in icrc:
            print(f)
        print("agg-vectors: cases=%d passed=%d failed=%d; %s" % (len(cases), len(cases) - failed, failed, agree))
        return 1 if failed or icrc or "agree" not in agree else 0
    finally:
        prog.close()


if __name__ == "__main__":
    sys.exit(main())
