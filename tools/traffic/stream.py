#!/usr/bin/python3
"""Numbered streams to several groups at once, counted at every host (standard library only).

  stream.py --fabric tools/lab/out/fabric.json --rate 200 --duration 8 \
            --group 1:h1:239.77.0.0:h3,h5,h7 --group 2:h2:239.77.0.1:h4 [--out FILE]

Each --group is ID:SOURCE:ADDRESS:MEMBERS. The source sends RATE packets a second to the group's address
(Ethernet to the IPv4 multicast MAC, IPv4, UDP 4791) carrying "M4S1", the group id and a sequence number;
every host of the fabric captures for the whole run (plus a short drain). One JSON line is printed: per group
the wall-clock send time of every packet, and per host and group what arrived: received, distinct, duplicates
and, for members, the missing sequence numbers as [first, last] ranges. A copy at a host that is not a member
of that group is a stray. Nothing is judged here: the caller knows which receivers were reachable when.
"""

import argparse
import json
import os
import select
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

MAGIC = b"M4S1"
PORT = 4791


def multicast_mac(group):
    a = socket.inet_aton(group)
    return b"\x01\x00\x5e" + bytes([a[1] & 0x7F, a[2], a[3]])


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def frame(src_mac, src_ip, group, gid, seq):
    payload = MAGIC + struct.pack("!IQ", gid, seq) + b"\0" * 32
    udp = struct.pack("!HHHH", 49152, PORT, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), seq & 0xFFFF, 0x4000, 16, 17, 0,
                     socket.inet_aton(src_ip), socket.inet_aton(group))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    mac = bytes(int(x, 16) for x in src_mac.split(":"))
    return multicast_mac(group) + mac + b"\x08\x00" + ip + udp


def parse(data):
    """(gid, seq) of a stream packet, or None."""
    if len(data) < 14 + 20 + 8 + 16 or data[12:14] != b"\x08\x00":
        return None
    ihl = (data[14] & 0x0F) * 4
    off = 14 + ihl + 8
    if data[14 + 9] != 17 or data[off:off + 4] != MAGIC:
        return None
    return struct.unpack("!IQ", data[off + 4:off + 16])


def ranges(missing):
    out = []
    for s in missing:
        if out and out[-1][1] == s - 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="stream.py")
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--group", action="append", required=True, help="ID:SOURCE:ADDRESS:MEMBER,MEMBER")
    ap.add_argument("--rate", type=float, default=200.0, help="packets per second per group")
    ap.add_argument("--duration", type=float, default=8.0, help="seconds of sending")
    ap.add_argument("--drain", type=float, default=0.5, help="seconds of capture after the last packet")
    ap.add_argument("--out", help="write the JSON here instead of standard output")
    a = ap.parse_args(argv)
    with open(a.fabric) as f:
        fabric = json.load(f)
    hosts = {h["name"]: h for h in fabric["hosts"]}
    groups = []
    for spec in a.group:
        gid, src, address, members = spec.split(":", 3)
        if src not in hosts:
            ap.error("unknown source " + src)
        groups.append({"id": int(gid), "source": src, "address": address,
                       "members": [m for m in members.split(",") if m]})
    socks = {name: netns.packet_socket(h["ns"], h["iface"]) for name, h in hosts.items()}
    counts = {name: {} for name in hosts}   # host -> gid -> {seq: copies}
    stop = threading.Event()

    def capture():
        by_fd = {s.fileno(): name for name, s in socks.items()}
        poller = select.poll()
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        while not stop.is_set():
            for fd, _ in poller.poll(50):
                name = by_fd[fd]
                try:
                    while True:
                        data, addr = socks[name].recvfrom(2048, socket.MSG_DONTWAIT)
                        if addr[2] == netns.PACKET_OUTGOING:
                            continue
                        p = parse(data)
                        if p is not None:
                            per = counts[name].setdefault(p[0], {})
                            per[p[1]] = per.get(p[1], 0) + 1
                except BlockingIOError:
                    pass

    t = threading.Thread(target=capture, daemon=True)
    t.start()
    frames = {g["id"]: (socks[g["source"]], hosts[g["source"]]) for g in groups}
    sent = {g["id"]: [] for g in groups}
    period = 1.0 / a.rate
    start = time.time()
    n = int(a.duration * a.rate)
    for seq in range(n):
        due = start + seq * period
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        for g in groups:
            s, h = frames[g["id"]]
            s.send(frame(h["mac"], h["ip"], g["address"], g["id"], seq))
            sent[g["id"]].append(round(time.time(), 4))
    time.sleep(a.drain)
    stop.set()
    t.join(2)
    result = {"rate": a.rate, "start": start, "groups": {}, "hosts": {}}
    for g in groups:
        result["groups"][str(g["id"])] = {"source": g["source"], "address": g["address"],
                                          "members": g["members"], "sent": sent[g["id"]]}
    for name in hosts:
        per_host = {}
        for g in groups:
            got = counts[name].get(g["id"], {})
            entry = {"received": sum(got.values()), "distinct": len(got),
                     "duplicates": sum(c - 1 for c in got.values() if c > 1),
                     "member": name in g["members"]}
            if entry["member"]:
                entry["missing"] = ranges([s for s in range(len(sent[g["id"]])) if s not in got])
            elif got:
                entry["strays"] = ranges(sorted(got))
            per_host[str(g["id"])] = entry
        result["hosts"][name] = per_host
    text = json.dumps(result, separators=(",", ":"))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
