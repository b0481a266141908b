"""RoCEv2 reliable-connection (RC) endpoints for the lab: a requester (the sender's QP) and responders (the
receivers' QPs), speaking RoCEv2 on the wire through AF_PACKET sockets in the lab's namespaces, every frame with
a valid ICRC (roce.icrc, checked against scapy and tshark by the tests).

Requester: SEND-only messages with a window of outstanding PSNs, cumulative ACKs free the window, go-back-N from
the PSN a NAK names, a retransmit timer when nothing advances, and a DCQCN-style rate cut on a CNP (halve the
rate, then recover additively).
Responder: in-order delivery, ACKs coalesced (one per `ack_every` packets, or after `ack_delay` with something
unacknowledged), one NAK (PSN sequence error) per gap, a re-ACK when duplicates arrive, and a wrong ICRC dropped
as an RNIC drops it.

`scenario` runs one transfer in one process, so that what the sender is told can be checked against what every
receiver acknowledged at that moment (no aggregated ACK may go beyond the slowest receiver):
    rc.py scenario --config run.json      prints one JSON result
"""

import argparse
import ipaddress
import json
import os
import select
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labrest  # noqa: E402
import netns  # noqa: E402
import roce  # noqa: E402

OP_SEND_ONLY = 0x04
OP_LAST_REQUEST = 0x0C
OP_ACK = 0x11
OP_CNP = 0x81
SYN_NAK_SEQ = 0x60          # AETH syndrome: NAK, PSN sequence error
CREDIT_INVALID = 0x1F
PSN_MASK = 0xFFFFFF
PACKET_OUTGOING = 4


def serial_lt(a, b):
    """a < b in 24-bit serial arithmetic."""
    return a != b and ((b - a) & PSN_MASK) < (1 << 23)


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


def ip_header(src, dst, payload_len):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0x4000, 64, 17, 0,
                    ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed)
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return h[:10] + struct.pack("!H", ~s & 0xFFFF) + h[12:]


def frame(src_mac, dst_mac, src_ip, dst_ip, opcode, dqpn, psn, body=b"", ackreq=False, sport=49152):
    """One RoCEv2 frame: Ethernet / IPv4 / UDP 4791 / BTH / body / ICRC (valid)."""
    bth = bytes([opcode, 0, 0xFF, 0xFF, 0]) + (dqpn & PSN_MASK).to_bytes(3, "big") \
        + bytes([0x80 if ackreq else 0]) + (psn & PSN_MASK).to_bytes(3, "big")
    rest = bth + body
    udp = struct.pack("!HHHH", sport, roce.ROCE_PORT, 8 + len(rest) + 4, 0)
    ip = ip_header(src_ip, dst_ip, 8 + len(rest) + 4)
    pkt = ip + udp + rest
    return mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + pkt + roce.icrc(pkt)


def aeth(syndrome, msn):
    return bytes([syndrome]) + (msn & PSN_MASK).to_bytes(3, "big")


def parse(f):
    """(Parsed, syndrome, msn, ackreq) of a RoCEv2 frame, or None."""
    p = roce.parse(f)
    if p is None:
        return None
    syn = msn = None
    if p.opcode == OP_ACK and len(f) >= 14 + 20 + 8 + 12 + 4:
        syn, msn = f[54], int.from_bytes(f[55:58], "big")
    return p, syn, msn, bool(f[50] & 0x80)


class Responder:
    """One receiver's RC QP."""

    def __init__(self, cfg, vp, now):
        self.cfg = cfg
        self.name = cfg["host"]
        self.ip, self.mac, self.qpn = cfg["ip"], cfg["mac"], cfg["qpn"]
        self.peer_qpn = cfg["peerQpn"]
        self.vp_ip, self.vp_mac = vp["ip"], vp["mac"]
        self.expected = cfg["joinPsn"] & PSN_MASK
        self.acked_sent = (self.expected - 1) & PSN_MASK   # the highest PSN it acknowledged
        self.ack_every = max(1, cfg.get("ackEvery", 1))
        self.ack_delay = cfg.get("ackDelayMs", 2) / 1000.0
        self.kill_after = cfg.get("killAfter")             # stop responding after this many messages
        self.cnp_after = cfg.get("cnpAfter")
        self.cnp_burst = cfg.get("cnpBurst", 0)
        self.active = not cfg.get("late", False)
        self.sock = netns.packet_socket(cfg["ns"], cfg["iface"])
        self.sock.setblocking(False)
        self.msn = 0
        self.pending = 0
        self.last_ack = now
        self.nak_open = False
        self.dup_run = 0
        self.alive = True
        self.stats = dict(delivered=0, duplicates=0, out_of_order=0, icrc_bad=0, strays=0, acks=0, naks=0,
                          nak_psns=[], cnps=0, killed=False)

    def send(self, opcode, psn, body):
        self.sock.send(frame(self.mac, self.vp_mac, self.ip, self.vp_ip, opcode, self.peer_qpn, psn, body))

    def ack(self, now):
        psn = (self.expected - 1) & PSN_MASK
        self.send(OP_ACK, psn, aeth(CREDIT_INVALID, self.msn))
        self.acked_sent = psn
        self.stats["acks"] += 1
        self.pending = 0
        self.last_ack = now

    def on_frame(self, f, now):
        r = parse(f)
        if r is None:
            return
        p, _, _, ackreq = r
        if p.opcode > OP_LAST_REQUEST:
            return
        if p.dst_ip != self.ip or p.dqpn != self.qpn:
            self.stats["strays"] += 1      # an RNIC would drop it: not for this QP
            return
        if not p.icrc_ok:
            self.stats["icrc_bad"] += 1
            return
        if not self.active or not self.alive:
            return
        if p.psn == self.expected:
            self.expected = (self.expected + 1) & PSN_MASK
            self.msn += 1
            self.stats["delivered"] += 1
            self.pending += 1
            self.nak_open = False
            self.dup_run = 0
            if self.cnp_after is not None and self.stats["delivered"] == self.cnp_after:
                for _ in range(self.cnp_burst):
                    self.send(OP_CNP, 0, bytes(16))
                    self.stats["cnps"] += 1
            if self.kill_after is not None and self.stats["delivered"] >= self.kill_after:
                self.alive = False
                self.stats["killed"] = True
                return
            if self.pending >= self.ack_every or ackreq:
                self.ack(now)
        elif serial_lt(self.expected, p.psn):
            self.stats["out_of_order"] += 1
            if not self.nak_open:
                self.send(OP_ACK, self.expected, aeth(SYN_NAK_SEQ, self.msn))
                self.stats["naks"] += 1
                self.stats["nak_psns"].append(self.expected)
                self.nak_open = True
        else:
            self.stats["duplicates"] += 1
            # a retransmission of what it has: acknowledge again (once per run, then as it coalesces)
            if self.dup_run % self.ack_every == 0:
                self.ack(now)
            self.dup_run += 1

    def on_timer(self, now):
        if self.active and self.alive and self.pending and now - self.last_ack >= self.ack_delay:
            self.ack(now)


class Requester:
    """The sender's RC QP: one connection to the virtual peer, or one per receiver (the unicast baseline)."""

    def __init__(self, cfg, conns, count, payload, window, rto, rate_pps, now):
        self.ip, self.mac = cfg["ip"], cfg["mac"]
        self.sock = netns.packet_socket(cfg["ns"], cfg["iface"])
        self.sock.setblocking(False)
        self.conns = []
        for c in conns:
            self.conns.append(dict(c, next=c["startPsn"], acked=(c["startPsn"] - 1) & PSN_MASK, sent=0,
                                   last_advance=now, done=False,
                                   last=(c["startPsn"] + count - 1) & PSN_MASK))
        self.count, self.payload, self.window, self.rto = count, payload, window, rto
        self.rate = self.max_rate = rate_pps
        self.tokens = 0.0
        self.last_fill = now
        self.acks_log = []
        self.stats = dict(data_frames=0, data_bytes=0, retransmitted=0, acks=0, advances=0, non_advancing=0,
                          beyond_sent=0, naks=0, cnps=0, timeouts=0, icrc_bad=0, rate_cuts=0)

    def outstanding(self, c):
        return (c["next"] - c["acked"] - 1) & PSN_MASK

    def pump(self, now):
        """Sends what the window and the rate allow."""
        dt = now - self.last_fill
        self.tokens = min(self.tokens + dt * self.rate, 64.0)
        self.last_fill = now
        if self.rate < self.max_rate:
            # additive recovery after a cut: back to full rate in about 50 ms without CNPs
            self.rate = min(self.max_rate, self.rate + self.max_rate * 20 * dt)
        sent = True
        while sent and self.tokens >= 1:
            sent = False
            for c in self.conns:
                if c["done"] or self.tokens < 1:
                    continue
                first_unsent = (c["startPsn"] + c["sent"]) & PSN_MASK
                in_range = serial_lt(c["next"], (c["last"] + 1) & PSN_MASK)
                if in_range and self.outstanding(c) < self.window:
                    retrans = serial_lt(c["next"], first_unsent)
                    index = (c["next"] - c["startPsn"]) & PSN_MASK
                    body = struct.pack("!Q", index) + bytes(self.payload - 8)
                    f = frame(self.mac, c["mac"], self.ip, c["ip"], OP_SEND_ONLY, c["qpn"], c["next"], body,
                              ackreq=(c["next"] == c["last"]))
                    self.sock.send(f)
                    self.stats["data_frames"] += 1
                    self.stats["data_bytes"] += len(f)
                    if retrans:
                        self.stats["retransmitted"] += 1
                    else:
                        c["sent"] += 1
                    c["next"] = (c["next"] + 1) & PSN_MASK
                    self.tokens -= 1
                    sent = True

    def on_frame(self, f, now, on_ack):
        r = parse(f)
        if r is None:
            return
        p, syn, msn, _ = r
        if p.dst_ip != self.ip:
            return
        if not p.icrc_ok:
            self.stats["icrc_bad"] += 1
            return
        conn = next((c for c in self.conns if c["myQpn"] == p.dqpn and c["ip"] == p.src_ip), None)
        if conn is None:
            return
        if p.opcode == OP_CNP:
            self.stats["cnps"] += 1
            self.rate = max(self.max_rate / 64.0, self.rate / 2)
            self.stats["rate_cuts"] += 1
            return
        if p.opcode != OP_ACK:
            return
        if syn & 0xE0 == 0x60:
            self.stats["naks"] += 1
            # go back N: everything from the PSN the NAK names is sent again
            if serial_lt(conn["acked"], p.psn):
                conn["acked"] = (p.psn - 1) & PSN_MASK
            conn["next"] = p.psn
            conn["last_advance"] = now
            return
        self.stats["acks"] += 1
        first_unsent = (conn["startPsn"] + conn["sent"]) & PSN_MASK
        if not serial_lt(p.psn, first_unsent):
            self.stats["beyond_sent"] += 1
        if serial_lt(conn["acked"], p.psn):
            conn["acked"] = p.psn
            conn["last_advance"] = now
            self.stats["advances"] += 1
            if serial_lt(conn["next"], (p.psn + 1) & PSN_MASK):
                conn["next"] = (p.psn + 1) & PSN_MASK
            if p.psn == conn["last"]:
                conn["done"] = True
        else:
            self.stats["non_advancing"] += 1
        self.acks_log.append((now, p.psn))
        on_ack(conn, p.psn, now)

    def on_timer(self, now):
        for c in self.conns:
            if not c["done"] and self.outstanding(c) and now - c["last_advance"] > self.rto:
                self.stats["timeouts"] += 1
                c["next"] = (c["acked"] + 1) & PSN_MASK
                c["last_advance"] = now

    def done(self):
        return all(c["done"] for c in self.conns)


def forge(cfg, vp):
    """A stranger's ACK (a non-member host naming a member's slot) or a member's ACK for a PSN never sent."""
    s = netns.packet_socket(cfg["ns"], cfg["iface"])
    s.send(frame(cfg["mac"], vp["mac"], cfg["ip"], vp["ip"], OP_ACK, cfg["peerQpn"], cfg["psn"],
                 aeth(CREDIT_INVALID, 0)))
    s.close()


def scenario(cfg):
    now = time.monotonic()
    vp = cfg["vp"]
    responders = [Responder(r, vp, now) for r in cfg["receivers"]]
    if cfg.get("unicast"):
        # the baseline: one RC connection per receiver, straight to it
        conns = [dict(ip=r.ip, mac=r.mac, qpn=r.qpn, myQpn=cfg["sender"]["qpn"] + 1 + i,
                      startPsn=vp["startPsn"]) for i, r in enumerate(responders)]
        for i, r in enumerate(responders):
            r.vp_ip, r.vp_mac, r.peer_qpn = cfg["sender"]["ip"], cfg["sender"]["mac"], conns[i]["myQpn"]
    else:
        conns = [dict(ip=vp["ip"], mac=vp["mac"], qpn=vp["qpn"], myQpn=cfg["sender"]["qpn"],
                      startPsn=vp["startPsn"])]
    req = Requester(cfg["sender"], conns, cfg["count"], cfg.get("payload", 1024), cfg.get("window", 64),
                    cfg.get("rtoMs", 50) / 1000.0, cfg.get("ratePps", 20000), now)
    beyond = [0]
    forged = list(cfg.get("forged", []))
    late = cfg.get("late")
    late_state = {}

    def on_ack(conn, psn, t):
        if cfg.get("unicast"):
            return
        # what the sender is told must not pass any receiver still counted (active, alive)
        live = [r for r in responders if r.active and r.alive]
        if live and any(serial_lt(r.acked_sent, psn) for r in live):
            beyond[0] += 1

    def add_late():
        try:
            rest = labrest.Rest(cfg["rest"]["base"], cfg["rest"]["user"], cfg["rest"]["password"])
            r = late_state["responder"]
            rest.call("POST", "groups/%d/receivers" % cfg["groupId"],
                      {"receivers": [{"host": r.name, "qpn": r.qpn}]})
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                ctx = rest.call("GET", "aggregation/%d" % cfg["groupId"])
                m = next((x for x in ctx.get("receivers", []) if x["host"] == r.name), None)
                if m is not None and m.get("joined"):
                    # the QP is set up with the PSN the aggregation point joined it at
                    r.peer_qpn = m["peerQpn"]
                    r.expected = m["joinPsn"]
                    r.acked_sent = (r.expected - 1) & PSN_MASK
                    late_state["joinPsn"] = r.expected
                    late_state["joinedAfter"] = req.conns[0]["sent"]
                    r.active = True
                    return
                time.sleep(0.05)
            late_state["error"] = "no join PSN reported in 10 s"
        except Exception as e:  # noqa: BLE001 - reported in the result
            late_state["error"] = str(e)

    if late:
        lr = Responder(dict(late["receiver"], late=True, joinPsn=0), vp, now)
        responders.append(lr)
        late_state["responder"] = lr
    socks = {r.sock.fileno(): r for r in responders}
    socks[req.sock.fileno()] = req
    # opening the sockets (a namespace switch each) takes a while: the clocks start now
    now = time.monotonic()
    for c in req.conns:
        c["last_advance"] = now
    req.last_fill = now
    for r in responders:
        r.last_ack = now
    deadline = now + cfg.get("timeoutS", 60)
    started = now
    while not req.done():
        now = time.monotonic()
        if now > deadline:
            break
        req.pump(now)
        ready, _, _ = select.select(list(socks), [], [], 0.0005)
        for fd in ready:
            o = socks[fd]
            while True:
                try:
                    f, addr = o.sock.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                if o is req:
                    req.on_frame(f, time.monotonic(), on_ack)
                else:
                    o.on_frame(f, time.monotonic())
        now = time.monotonic()
        for r in responders:
            r.on_timer(now)
        req.on_timer(now)
        sent = req.conns[0]["sent"]
        while forged and sent >= forged[0].get("afterSent", 0):
            forge(forged.pop(0), vp)
        if late and "thread" not in late_state and sent >= late.get("afterSent", 0):
            late_state["thread"] = threading.Thread(target=add_late, daemon=True)
            late_state["thread"].start()
    elapsed = time.monotonic() - started
    # drain: late copies and ACKs still in flight
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        ready, _, _ = select.select(list(socks), [], [], 0.01)
        for fd in ready:
            o = socks[fd]
            try:
                f, addr = o.sock.recvfrom(65535)
            except BlockingIOError:
                continue
            if addr[2] != PACKET_OUTGOING and o is not req:
                o.on_frame(f, time.monotonic())
    acks = [p for _, p in req.acks_log]
    gaps = [(b[0] - a[0], (a[1] - vp["startPsn"]) & PSN_MASK) for a, b in zip(req.acks_log, req.acks_log[1:])]
    gap = max(gaps) if gaps else (0, 0)
    increasing = all(serial_lt(a, b) for a, b in zip(acks, acks[1:]))
    out = dict(done=req.done(), seconds=round(elapsed, 3), sender=req.stats, beyond_min=beyond[0],
               longest_ack_gap_ms=round(gap[0] * 1000, 1), longest_gap_after=gap[1],
               first_ack_ms=round((req.acks_log[0][0] - started) * 1000, 1) if req.acks_log else None,
               acks_increasing=increasing, file_bytes=cfg["count"] * cfg.get("payload", 1024),
               receivers={r.name: r.stats for r in responders})
    if late:
        out["late"] = {k: v for k, v in late_state.items() if k not in ("thread", "responder")}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scenario")
    s.add_argument("--config", required=True)
    a = ap.parse_args()
    if a.cmd == "scenario":
        with open(a.config) as f:
            cfg = json.load(f)
        print(json.dumps(scenario(cfg)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
