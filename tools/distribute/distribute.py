"""mcast4ai-distribute: push a file or a directory of shards from one node to many over an mcast4ai group, the
network replicating it, every receiver verifying the whole object's SHA-256 before it reports success.

    mcast4ai-distribute send PATH --receivers H,H,... [--tenant T] [--rate MBIT] [--port P] ...
    mcast4ai-distribute receive --out DIR [--group ADDR] [--port P] ...

The sender names the group after the object's content hash (two jobs loading the same checkpoint share one
transfer), creates it through the scheduler client (`mcast4ai-client create --reuse --wait`), or is given its
address (`--group`), streams the object to it in numbered datagrams, gathers the receivers' NACKs over a short
window and repairs the union of what they miss by multicast (N receivers missing the same datagram cost one
repair), serves a receiver that falls far behind (a late joiner, a lossy link) over TCP instead of holding back the
group, adapts its rate to the repairs it has to send, and withdraws the group it created when every receiver has
reported. Receivers keep what they have as a sorted list of ranges (a 1 TB object in 1 MB chunks is a million
sequence numbers, not a million entries), write each datagram where it belongs in the object's files, verify each
file's and the whole object's SHA-256, and report.

Wire format (UDP, big endian), every packet: magic "M4D1", type, flags, 2 reserved bytes, object id (8 bytes of
the object's SHA-256):
  ANNOUNCE (sender, multicast) total datagrams u64, object size u64, payload size u16, control TCP port u16
  DATA     (sender, multicast) sequence u64, payload
  FIN      (sender, multicast) round u32, upto u64: every datagram below upto has been sent once
  NACK     (receiver, unicast) count u16, then (start u64, length u32) ranges it misses
  DONE     (receiver, unicast) status u8 (1 verified, 2 checksum failed), SHA-256 it computed
  DONEACK  (sender, unicast)   the DONE was counted
  CATCHUP  (sender, unicast)   fetch what you miss over TCP from the control port
  READY    (receiver, unicast) it has the manifest and listens: the sender starts when every receiver is (or after
           --wait-receivers seconds; a receiver that comes later is repaired like any other)
TCP control port: a line "MANIFEST" answers the manifest as JSON; "RANGE start count" answers that many
datagrams' payloads.
"""

import argparse
import bisect
import hashlib
import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

MAGIC = b"M4D1"
ANNOUNCE, DATA, FIN, NACK, DONE, DONEACK, CATCHUP, READY = 1, 2, 3, 4, 5, 6, 7, 8
HDR = struct.Struct("!4sBBH8s")
PAYLOAD = 1448                     # datagram payload: full 1,514-byte frames on a 1,500-byte MTU
MAX_RANGES = 80                    # per NACK
CHECKPOINT = 1024                  # datagrams between the sender's checkpoints (FIN) during the first pass
SO_RCVBUFFORCE = 33
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CHECKSUM, EXIT_TIMEOUT = 0, 1, 2, 3, 5


def header(kind, oid):
    return HDR.pack(MAGIC, kind, 0, 0, oid)


# ---------------------------------------------------------------- the object

class Manifest:
    """The object: files in a fixed order, concatenated; each with its size and SHA-256, and the whole's."""

    def __init__(self, files, sha256, payload=PAYLOAD):
        self.files = files                  # [{"path", "offset", "size", "sha256"}]
        self.size = sum(f["size"] for f in files)
        self.sha256 = sha256
        self.payload = payload
        self.total = (self.size + payload - 1) // payload
        self.offsets = [f["offset"] for f in files]

    @property
    def oid(self):
        return bytes.fromhex(self.sha256)[:8]

    @staticmethod
    def of(path, payload=PAYLOAD):
        root = os.path.abspath(path)
        if os.path.isdir(root):
            names = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)
        elif os.path.isfile(root):
            names = [os.path.basename(root)]
            root = os.path.dirname(root)
        else:
            raise SystemExit("mcast4ai-distribute: %s is neither a file nor a directory" % path)
        whole = hashlib.sha256()
        files, offset = [], 0
        for n in names:
            h = hashlib.sha256()
            size = 0
            with open(os.path.join(root, n), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
                    whole.update(block)
                    size += len(block)
            files.append(dict(path=n, offset=offset, size=size, sha256=h.hexdigest()))
            offset += size
        m = Manifest(files, whole.hexdigest(), payload)
        m.root = root
        return m

    def to_json(self):
        return json.dumps(dict(files=self.files, sha256=self.sha256, payload=self.payload))

    @staticmethod
    def from_json(text):
        d = json.loads(text)
        return Manifest(d["files"], d["sha256"], d["payload"])

    def pieces(self, start, length):
        """(file index, offset in file, length) covering object bytes [start, start + length)."""
        i = bisect.bisect_right(self.offsets, start) - 1
        while length > 0 and i < len(self.files):
            f = self.files[i]
            within = start - f["offset"]
            n = min(length, f["size"] - within)
            if n > 0:
                yield i, within, n
                start += n
                length -= n
            i += 1


class Reader:
    """The sender's side: datagram payloads read from the object's files."""

    def __init__(self, m):
        self.m = m
        self.fds = [os.open(os.path.join(m.root, f["path"]), os.O_RDONLY) for f in m.files]

    def payload(self, seq):
        start = seq * self.m.payload
        want = min(self.m.payload, self.m.size - start)
        return b"".join(os.pread(self.fds[i], n, off) for i, off, n in self.m.pieces(start, want))


class Ranges:
    """Sorted, merged [start, end) ranges of sequence numbers held: memory grows with the gaps, not the object."""

    def __init__(self):
        self.starts, self.ends = [], []

    def add(self, a, b):
        i = bisect.bisect_left(self.ends, a)
        j = bisect.bisect_right(self.starts, b)
        if i < j:
            a = min(a, self.starts[i])
            b = max(b, self.ends[j - 1])
        self.starts[i:j] = [a]
        self.ends[i:j] = [b]

    def has(self, x):
        i = bisect.bisect_right(self.starts, x) - 1
        return i >= 0 and x < self.ends[i]

    def count(self):
        return sum(e - s for s, e in zip(self.starts, self.ends))

    def missing(self, total, limit=None):
        out, pos = [], 0
        for s, e in zip(self.starts, self.ends):
            if s > pos:
                out.append((pos, s - pos))
                if limit and len(out) >= limit:
                    return out
            pos = max(pos, e)
        if pos < total:
            out.append((pos, total - pos))
        return out[:limit] if limit else out


# ---------------------------------------------------------------- the sender

class Sender:
    def __init__(self, a, m, group, port, expected):
        self.a, self.m, self.group, self.port = a, m, group, port
        self.expected = set(expected)
        self.reader = Reader(m)
        self.data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.data.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
        self.data.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        if a.interface:
            self.data.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(a.interface))
        self.ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.ctl.bind(("0.0.0.0", port + 1))
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("0.0.0.0", port + 1))
        self.tcp.listen(64)
        self.max_rate = a.rate * 1e6 / 8      # bytes per second
        self.rate = self.max_rate / 4         # slow start: up by half every clean window until the first loss
        self.slow_start = True
        self.recent = []                      # the median receiver's loss in the last windows
        self.tokens = 0.0
        self.last = time.monotonic()
        self.done, self.failed = {}, {}
        self.catchup = set()
        self.ready = set()
        self.nacks = {}
        self.stats = dict(datagrams=0, bytes=0, repair_datagrams=0, repair_bytes=0, rounds=0, nacks=0,
                          catchup_receivers=0, catchup_bytes=0)
        threading.Thread(target=self.serve_tcp, daemon=True).start()

    def serve_tcp(self):
        while True:
            conn, _ = self.tcp.accept()
            threading.Thread(target=self.serve_one, args=(conn,), daemon=True).start()

    def serve_one(self, conn):
        with conn, conn.makefile("rb") as f:
            for line in f:
                words = line.decode().split()
                if words[:1] == ["MANIFEST"]:
                    body = self.m.to_json().encode()
                    conn.sendall(struct.pack("!I", len(body)) + body)
                elif words[:1] == ["RANGE"] and len(words) == 3:
                    start, count = int(words[1]), int(words[2])
                    for s in range(start, min(start + count, self.m.total)):
                        p = self.reader.payload(s)
                        conn.sendall(struct.pack("!QH", s, len(p)) + p)
                        self.stats["catchup_bytes"] += len(p)
                else:
                    return

    def pace(self, n):
        while True:
            now = time.monotonic()
            self.tokens = min(self.tokens + (now - self.last) * self.rate, 256 * 1024)
            self.last = now
            if self.tokens >= n:
                self.tokens -= n
                return
            self.poll((n - self.tokens) / self.rate)

    def send(self, seq, repair=False):
        p = self.reader.payload(seq)
        pkt = header(DATA, self.m.oid) + struct.pack("!Q", seq) + p
        self.pace(len(pkt) + 28)
        self.data.sendto(pkt, (self.group, self.port))
        self.stats["datagrams"] += 1
        self.stats["bytes"] += len(pkt)
        if repair:
            self.stats["repair_datagrams"] += 1
            self.stats["repair_bytes"] += len(pkt)

    def control(self, kind, body=b""):
        self.data.sendto(header(kind, self.m.oid) + body, (self.group, self.port))

    def announce(self):
        self.control(ANNOUNCE, struct.pack("!QQHH", self.m.total, self.m.size, self.m.payload, self.port + 1))

    def poll(self, timeout):
        """Receivers' NACKs and DONEs, for up to `timeout` seconds."""
        end = time.monotonic() + max(0.0, timeout)
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select([self.ctl], [], [], max(0.0, left))
            if not r:
                return
            pkt, addr = self.ctl.recvfrom(65536)
            if len(pkt) < HDR.size:
                continue
            magic, kind, _, _, oid = HDR.unpack_from(pkt)
            if magic != MAGIC or oid != self.m.oid:
                continue
            who = addr[0]
            body = pkt[HDR.size:]
            if kind == NACK:
                self.stats["nacks"] += 1
                (n,) = struct.unpack_from("!H", body)
                ranges = [struct.unpack_from("!QI", body, 2 + 12 * i) for i in range(n)]
                self.nacks[who] = ranges
            elif kind == READY:
                self.ready.add(who)
            elif kind == DONE:
                status = body[0]
                (self.done if status == 1 else self.failed)[who] = body[1:33].hex()
                self.ctl.sendto(header(DONEACK, self.m.oid), addr)
                self.nacks.pop(who, None)
            if time.monotonic() >= end:
                return

    def finished(self):
        return self.expected <= set(self.done) | set(self.failed)

    def run(self, deadline):
        wait_until = min(deadline, time.monotonic() + self.a.wait_receivers)
        while not self.expected <= self.ready and time.monotonic() < wait_until:
            self.announce()
            self.poll(0.1)
        self.stats["ready_at_start"] = len(self.ready & self.expected)
        t0 = time.monotonic()
        self.announce()
        progress = Progress(self, t0)
        self.round = 0
        for seq in range(self.m.total):
            if seq % CHECKPOINT == 0 and seq:
                # what the receivers reported missing at the last checkpoint is repaired now, and their loss
                # sets the rate (repair)
                self.repair(self.nacks, adapt=True, window=CHECKPOINT)
                self.nacks = {}
                self.round += 1
                self.control(FIN, struct.pack("!IQ", self.round, seq))
                self.announce()
                progress.show()
            self.send(seq)
        while not self.finished() and time.monotonic() < deadline:
            self.round += 1
            self.stats["rounds"] = self.round
            self.nacks = {}
            self.announce()                   # for receivers that start late
            self.control(FIN, struct.pack("!IQ", self.round, self.m.total))
            self.poll(self.a.nack_window / 1000.0)
            self.repair(self.nacks, adapt=False, window=self.m.total, catchup=True)
            progress.show()
        progress.show(final=True)
        self.stats["seconds"] = round(time.monotonic() - t0, 3)
        self.stats["rate_mbit_end"] = round(self.rate * 8 / 1e6, 1)
        return self.stats

    def repair(self, nacks, adapt, window, catchup=False):
        want = set()
        shares = {}
        for who, ranges in list(nacks.items()):
            missing = sum(n for _, n in ranges)
            shares[who] = missing / max(1, window)
            if catchup and who not in self.catchup and missing > self.a.catchup * self.m.total:
                # far behind (joined late, or a lossy link): served over TCP, the group goes on
                self.catchup.add(who)
                self.stats["catchup_receivers"] += 1
                self.ctl.sendto(header(CATCHUP, self.m.oid), (who, self.port + 2))
                continue
            if who in self.catchup:
                continue
            for s, n in ranges:
                want.update(range(s, min(s + n, self.m.total)))
        if adapt and not shares:
            # nobody NACKed: a clean window, but no measurement of the links either (the first checkpoint comes
            # before any FIN, and NACKs can arrive a window late): the floor below is not lowered by it
            self.rate = min(self.max_rate, self.rate * (1.5 if self.slow_start else 1.05))
        elif adapt:
            # the median receiver's loss: the path's capacity when most lose, a few receivers' links when not
            ranked = sorted(shares.get(r, 0.0) for r in self.expected) or [0.0]
            median = ranked[len(ranked) // 2]
            # loss that stays whatever the rate is the links' (a lossy link, not congestion): the lowest median of
            # the last windows is that floor, and only loss above it cuts the rate
            self.recent = (self.recent + [median])[-8:]
            floor = min(self.recent)
            if median > max(2 * floor, floor + 0.03):
                self.rate = max(self.max_rate / 64, self.rate * 0.7)
                self.slow_start = False
            elif median < floor + 0.015:
                self.rate = min(self.max_rate, self.rate * (1.5 if self.slow_start else 1.05))
        for seq in sorted(want):
            self.send(seq, repair=True)



class Progress:
    def __init__(self, s, t0):
        self.s, self.t0, self.last = s, t0, 0.0
        self.tty = sys.stderr.isatty()

    def show(self, final=False):
        now = time.monotonic()
        if not final and now - self.last < (0.25 if self.tty else 2.0):
            return
        self.last = now
        s = self.s
        sent = s.stats["bytes"]
        line = "distribute: sent %.1f of %.1f MB, %.0f Mbit/s, repairs %.2f MB, receivers verified %d/%d" % (
            (sent - s.stats["repair_bytes"]) / 1e6, s.m.size / 1e6, sent * 8 / 1e6 / max(1e-3, now - self.t0),
            s.stats["repair_bytes"] / 1e6, len(s.done), len(s.expected))
        if s.failed:
            line += ", FAILED %d" % len(s.failed)
        sys.stderr.write(("\r" + line + " " * 4) if self.tty and not final else line + "\n")
        sys.stderr.flush()


# ---------------------------------------------------------------- the receiver

class Receiver:
    def __init__(self, a):
        self.a = a
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            # beyond net.core.rmem_max when root may: a receiver descheduled for a few ms must not lose datagrams
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
        self.sock.bind(("0.0.0.0", a.port))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                             socket.inet_aton(a.group) + socket.inet_aton(a.interface or "0.0.0.0"))
        self.ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.ctl.bind(("0.0.0.0", a.port + 2))
        self.have = Ranges()
        self.m = None
        self.sender = None
        self.fds = []
        self.stats = dict(datagrams=0, duplicates=0, nacks=0, catchup=False, catchup_datagrams=0)

    def start(self, sender, oid, tcp_port):
        self.sender, self.oid, self.tcp_port = sender, oid, tcp_port
        with socket.create_connection((sender, tcp_port), timeout=10) as c:
            c.sendall(b"MANIFEST\n")
            n = struct.unpack("!I", recv_all(c, 4))[0]
            self.m = Manifest.from_json(recv_all(c, n).decode())
        if self.m.oid != oid:
            raise SystemExit("mcast4ai-distribute: the sender's manifest does not name object %s" % oid.hex())
        os.makedirs(self.a.out, exist_ok=True)
        for f in self.m.files:
            path = os.path.join(self.a.out, f["path"])
            if os.path.relpath(os.path.abspath(path), os.path.abspath(self.a.out)).startswith(".."):
                raise SystemExit("mcast4ai-distribute: manifest path %s leaves %s" % (f["path"], self.a.out))
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            os.ftruncate(fd, f["size"])
            self.fds.append(fd)

    def write(self, seq, payload):
        if seq >= self.m.total or self.have.has(seq):
            self.stats["duplicates"] += 1
            return
        for i, off, n in self.m.pieces(seq * self.m.payload, len(payload)):
            start = self.m.files[i]["offset"] + off - seq * self.m.payload
            os.pwrite(self.fds[i], payload[start:start + n], off)
        self.have.add(seq, seq + 1)
        self.stats["datagrams"] += 1

    def complete(self):
        return self.m is not None and self.have.count() >= self.m.total

    def nack(self, upto):
        ranges = [(a, min(n, upto - a)) for a, n in self.have.missing(self.m.total, MAX_RANGES) if a < upto]
        if not ranges:
            return
        body = struct.pack("!H", len(ranges)) + b"".join(struct.pack("!QI", s, min(n, 0xFFFFFFFF)) for s, n in ranges)
        self.ctl.sendto(header(NACK, self.oid) + body, (self.sender, self.a.port + 1))
        self.stats["nacks"] += 1

    def catch_up(self):
        """Everything still missing, over TCP from the sender."""
        self.stats["catchup"] = True
        with socket.create_connection((self.sender, self.tcp_port), timeout=30) as c:
            for s, n in self.have.missing(self.m.total):
                c.sendall(b"RANGE %d %d\n" % (s, n))
                for _ in range(n):
                    seq, length = struct.unpack("!QH", recv_all(c, 10))
                    self.write(seq, recv_all(c, length))
                    self.stats["catchup_datagrams"] += 1

    def verify(self):
        whole = hashlib.sha256()
        ok = True
        for fd, f in zip(self.fds, self.m.files):
            h = hashlib.sha256()
            pos = 0
            while pos < f["size"]:
                block = os.pread(fd, min(1 << 20, f["size"] - pos), pos)
                h.update(block)
                whole.update(block)
                pos += len(block)
            ok &= h.hexdigest() == f["sha256"]
        return ok and whole.hexdigest() == self.m.sha256, whole.digest()

    def run(self, deadline):
        t0 = time.monotonic()
        catchup = False
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.sock, self.ctl], [], [], 0.2)
            for s in r:
                pkt, addr = s.recvfrom(65536)
                if len(pkt) < HDR.size:
                    continue
                magic, kind, _, _, oid = HDR.unpack_from(pkt)
                if magic != MAGIC:
                    continue
                if self.m is None:
                    if kind == ANNOUNCE and (self.a.object is None or oid.hex().startswith(self.a.object)):
                        (tcp_port,) = struct.unpack_from("!H", pkt, HDR.size + 18)
                        self.start(addr[0], oid, tcp_port)
                        self.ctl.sendto(header(READY, self.oid), (self.sender, self.a.port + 1))
                    continue
                if oid != self.oid:
                    continue
                if kind == DATA:
                    (seq,) = struct.unpack_from("!Q", pkt, HDR.size)
                    self.write(seq, pkt[HDR.size + 8:])
                elif kind == FIN and not self.complete():
                    (_, upto) = struct.unpack_from("!IQ", pkt, HDR.size)
                    self.nack(upto)
                elif kind == CATCHUP:
                    catchup = True
            if self.m is not None and catchup and not self.complete():
                self.catch_up()
            if self.complete():
                break
        if not self.complete():
            return EXIT_TIMEOUT, time.monotonic() - t0
        ok, digest = self.verify()
        for _ in range(50):                 # until the sender counted it
            self.ctl.sendto(header(DONE, self.oid) + bytes([1 if ok else 2]) + digest, (self.sender, self.a.port + 1))
            r, _, _ = select.select([self.ctl], [], [], 0.1)
            if r and HDR.unpack_from(self.ctl.recv(65536))[1] == DONEACK:
                break
        return (EXIT_OK if ok else EXIT_CHECKSUM), time.monotonic() - t0


def recv_all(c, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = c.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the sender closed the connection")
        buf += chunk
    return bytes(buf)


# ---------------------------------------------------------------- the group, through the scheduler client

def client(a, *args):
    cmd = [a.client, "--json"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args[:1]), (r.stderr or r.stdout).strip()))
    return json.loads(r.stdout) if r.stdout.strip() else {}


def main():
    ap = argparse.ArgumentParser(prog="mcast4ai-distribute", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send", help="send a file or a directory")
    s.add_argument("path")
    s.add_argument("--receivers", help="the receiving hosts, comma-separated (the group's receivers)")
    s.add_argument("--receivers-file")
    s.add_argument("--source", help="this host as the controller knows it (default: --interface)")
    s.add_argument("--tenant", default=os.environ.get("MCAST4AI_TENANT", "default"))
    s.add_argument("--group", help="the group's address, when the group exists already (no client call)")
    s.add_argument("--client", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "client",
                                                    "mcast4ai-client"))
    s.add_argument("--rate", type=float, default=400, help="start rate, Mbit/s (adapted to the repairs)")
    s.add_argument("--nack-window", type=int, default=30, help="ms to gather NACKs before a repair round")
    s.add_argument("--catchup", type=float, default=0.25,
                   help="a receiver missing more than this share after a round is served over TCP")
    s.add_argument("--wait-receivers", type=float, default=20,
                   help="seconds to wait for every receiver to be ready before streaming")
    s.add_argument("--timeout", type=float, default=600)
    r = sub.add_parser("receive", help="receive into a directory")
    r.add_argument("--out", required=True)
    r.add_argument("--group", required=True)
    r.add_argument("--object", help="only this object (a prefix of its SHA-256)")
    r.add_argument("--timeout", type=float, default=600)
    for p in (s, r):
        p.add_argument("--port", type=int, default=48400, help="data port (the next two: control)")
        p.add_argument("--interface", help="this host's address on the fabric")
        p.add_argument("--stats", help="write the counters here (JSON)")
    a = ap.parse_args()
    deadline = time.monotonic() + a.timeout
    if a.cmd == "receive":
        rcv = Receiver(a)
        code, secs = rcv.run(deadline)
        word = {EXIT_OK: "verified", EXIT_CHECKSUM: "CHECKSUM MISMATCH", EXIT_TIMEOUT: "timed out"}[code]
        print("distribute: %s %s in %.2f s (%d datagrams, %d duplicates, %d NACKs%s)" % (
            word, rcv.m.sha256[:16] if rcv.m else "-", secs, rcv.stats["datagrams"], rcv.stats["duplicates"],
            rcv.stats["nacks"], ", caught up over TCP" if rcv.stats["catchup"] else ""))
        if a.stats:
            with open(a.stats, "w") as f:
                json.dump(dict(rcv.stats, code=code, seconds=round(secs, 3)), f)
        return code
    m = Manifest.of(a.path)
    receivers = [x for x in (a.receivers or "").split(",") if x]
    if a.receivers_file:
        receivers += [x.strip() for x in open(a.receivers_file) if x.strip()]
    if not receivers:
        ap.error("name the receivers (--receivers or --receivers-file)")
    name = "obj-" + m.sha256[:16]
    created = None
    group = a.group
    if group is None:
        source = a.source or a.interface
        if not source:
            ap.error("--source (or --interface) names this host to the controller")
        try:
            # a live group of this object's name is another job's transfer of the same bytes: join it, and leave
            # its withdrawal to whoever created it
            g = client(a, "show", "--tenant", a.tenant, "--name", name)
            if g.get("state") not in ("INSTALLED", "DEGRADED", "INSTALLING", "SUBMITTED", "COMPILING"):
                g = None
        except RuntimeError:
            g = None
        try:
            if g is None:
                g = client(a, "create", "--tenant", a.tenant, "--name", name, "--source", source, "--receivers",
                           ",".join(receivers), "--reuse", "--wait", "--timeout", "30")
                created = g["id"]
            else:
                client(a, "add", str(g["id"]), *receivers)
                client(a, "wait", str(g["id"]), "--timeout", "30")
        except RuntimeError as e:
            print("mcast4ai-distribute: the group could not be set up: %s" % e, file=sys.stderr)
            return EXIT_FAILED
        group = g["address"]
        print("distribute: object %s (%d files, %.1f MB) on group %s (%s, id %s)" % (
            m.sha256[:16], len(m.files), m.size / 1e6, group, name, g["id"]), file=sys.stderr)
    expected = []
    for h in receivers:
        try:
            expected.append(socket.gethostbyname(h))
        except OSError:
            expected.append(h)
    snd = Sender(a, m, group, a.port, expected)
    stats = snd.run(deadline)
    stats.update(file_bytes=m.size, verified=len(snd.done), failed=sorted(snd.failed), receivers=len(expected),
                 missing=sorted(set(expected) - set(snd.done) - set(snd.failed)), group=group)
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump(stats, f)
    if created is not None:
        try:
            client(a, "withdraw", str(created), "--purge")
        except RuntimeError as e:
            print("mcast4ai-distribute: withdrawing group %s: %s" % (created, e), file=sys.stderr)
    print("distribute: receivers=%d verified=%d failed=%d sender_ratio=%.3f repairs=%d in %.2f s" % (
        len(expected), len(snd.done), len(snd.failed), stats["bytes"] / max(1, m.size), stats["repair_datagrams"],
        stats["seconds"]))
    if snd.failed:
        print("mcast4ai-distribute: checksum mismatch at %s" % ", ".join(sorted(snd.failed)), file=sys.stderr)
        return EXIT_CHECKSUM
    if stats["missing"]:
        print("mcast4ai-distribute: no report from %s" % ", ".join(stats["missing"]), file=sys.stderr)
        return EXIT_TIMEOUT
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
