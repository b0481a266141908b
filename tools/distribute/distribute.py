"""mcast4ai-distribute: push a file or a directory of shards from one node to many over an mcast4ai group, the
network replicating it, every receiver verifying the whole object's SHA-256 before it reports success.

    mcast4ai-distribute send PATH --receivers H,H,... [--tenant T] [--rate MBIT] [--port P] ...
    mcast4ai-distribute receive --out DIR [--group ADDR] [--port P] ...

The sender names the group after the object's content hash (two jobs loading the same checkpoint share one
transfer), creates it through the scheduler client (`mcast4ai-client create --reuse --wait`), or is given its
address (`--group`), announces the object and serves its manifest over TCP; when every receiver is ready it hands
its sockets to the compiled data path (`fast/m4d`): the object in blocks of 64 datagrams, each block a
Reed-Solomon code (any 64 of its symbols rebuild it), repair symbols sent with the data as the receivers' loss
asks, the rest repaired once for all receivers by multicast, or by unicast to the one receiver that misses it; a
rate that backs off on congestion (receivers' socket overflows, ECN marks) and not on a lossy link. Receivers write
whole blocks where they belong in the object's files, hash the object as it completes, and report DONE with the
SHA-256s checked against the manifest. The sender withdraws the group it created when every receiver reported.

Wire format (UDP, big endian), every packet: magic "M4D1", type, flags, 2 reserved bytes, object id (8 bytes of
the object's SHA-256):
  ANNOUNCE (sender, multicast) total datagrams u64, object size u64, payload size u16, control TCP port u16
  DONE     (receiver, unicast) status u8 (1 verified, 2 checksum failed), SHA-256 it computed
  DONEACK  (sender, unicast)   the DONE was counted
  READY    (receiver, unicast) it has the manifest and listens: the sender starts when every receiver is (or after
           --wait-receivers seconds; a receiver that comes later is repaired like any other)
  SYM, FIN2, REPORT: the data path's (fast/m4d.h describes them)
TCP control port: a line "MANIFEST" answers the manifest as JSON.
"""

import argparse
import hashlib
import json
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

MAGIC = b"M4D1"
ANNOUNCE, DONE, DONEACK, READY = 1, 5, 6, 8
HDR = struct.Struct("!4sBBH8s")
PAYLOAD = 1460                     # symbol payload: full 1,514-byte frames on a 1,500-byte MTU (fixed in fast/m4d.h)
BLOCK = 64                         # datagrams per erasure-coded block
SO_RCVBUFFORCE = 33
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CHECKSUM, EXIT_TIMEOUT = 0, 1, 2, 3, 5


def header(kind, oid):
    return HDR.pack(MAGIC, kind, 0, 0, oid)


# ---------------------------------------------------------------- the object

class Manifest:
    """The object: files in a fixed order, concatenated; each with its size and SHA-256, and the whole's."""

    def __init__(self, files, sha256, payload=PAYLOAD, block=BLOCK):
        self.files = files                  # [{"path", "offset", "size", "sha256"}]
        self.size = sum(f["size"] for f in files)
        self.sha256 = sha256
        self.payload = payload
        self.block = block
        self.total = (self.size + payload - 1) // payload

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
        return json.dumps(dict(files=self.files, sha256=self.sha256, payload=self.payload, block=self.block))

    @staticmethod
    def from_json(text):
        d = json.loads(text)
        if d["payload"] != PAYLOAD or not 1 <= d.get("block", BLOCK) <= 128:
            raise SystemExit("mcast4ai-distribute: the sender's manifest asks for %s-byte symbols in blocks of %s; "
                             "this receiver takes %d in 1..128" % (d["payload"], d.get("block"), PAYLOAD))
        return Manifest(d["files"], d["sha256"], d["payload"], d.get("block", BLOCK))


FAST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fast")


def data_path():
    """The compiled data path, built from fast/ when it is missing or older than its sources."""
    exe = os.path.join(FAST, "m4d")
    newest = max(os.path.getmtime(os.path.join(FAST, f)) for f in os.listdir(FAST)
                 if f.endswith((".c", ".h")) or f == "Makefile")
    if not os.path.exists(exe) or os.path.getmtime(exe) < newest:
        r = subprocess.run(["make", "-s", "-C", FAST], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("mcast4ai-distribute: building fast/m4d failed (it needs gcc, make, libisal-dev and "
                             "libssl-dev): " + (r.stderr or r.stdout).strip()[-800:])
    return exe


def files_list(paths_sizes):
    """The object's files for the data path: one "size<TAB>path" line each, in the object's order."""
    fd, path = tempfile.mkstemp(prefix="m4d-files-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        for p, size in paths_sizes:
            f.write("%d\t%s\n" % (size, p))
    return path


def run_data_path(args, m, paths_sizes, socks, deadline):
    """fast/m4d with these arguments over the object's files and the two sockets (data, control); its counters."""
    files = files_list(paths_sizes)
    stats_path = files + ".stats"
    data, ctl = socks
    try:
        cmd = [data_path(), args[0], "--fd-data", str(data.fileno()), "--fd-ctl", str(ctl.fileno()),
               "--oid", m.oid.hex(), "--files", files, "--size", str(m.size), "--k", str(m.block),
               "--stats", stats_path, "--timeout", "%.1f" % max(1.0, deadline - time.monotonic())] + args[1:]
        subprocess.run(cmd, pass_fds=(data.fileno(), ctl.fileno()))
        with open(stats_path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit("mcast4ai-distribute: the data path failed: %s" % e)
    finally:
        for p in (files, stats_path):
            if os.path.exists(p):
                os.unlink(p)


# ---------------------------------------------------------------- the sender

class Sender:
    def __init__(self, a, m, group, port, expected):
        self.a, self.m, self.group, self.port = a, m, group, port
        self.expected = set(expected)
        self.data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.data.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
        self.data.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        if a.interface:
            self.data.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(a.interface))
        self.ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rcvbuf(self.ctl, 8 << 20)
        self.ctl.bind(("0.0.0.0", port + 1))
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("0.0.0.0", port + 1))
        self.tcp.listen(64)
        self.done, self.failed = {}, {}
        self.ready = set()
        threading.Thread(target=self.serve_tcp, daemon=True).start()

    def serve_tcp(self):
        while True:
            conn, _ = self.tcp.accept()
            threading.Thread(target=self.serve_one, args=(conn,), daemon=True).start()

    def serve_one(self, conn):
        with conn, conn.makefile("rb") as f:
            for line in f:
                if line.split()[:1] != [b"MANIFEST"]:
                    return
                body = self.m.to_json().encode()
                conn.sendall(struct.pack("!I", len(body)) + body)

    def announce_packet(self):
        return header(ANNOUNCE, self.m.oid) + struct.pack("!QQHH", self.m.total, self.m.size, self.m.payload,
                                                          self.port + 1)

    def poll(self, timeout):
        """Receivers' READYs, for up to `timeout` seconds."""
        end = time.monotonic() + max(0.0, timeout)
        while True:
            r, _, _ = select.select([self.ctl], [], [], max(0.0, end - time.monotonic()))
            if not r:
                return
            pkt, addr = self.ctl.recvfrom(65536)
            if len(pkt) >= HDR.size:
                magic, kind, _, _, oid = HDR.unpack_from(pkt)
                if magic == MAGIC and oid == self.m.oid and kind == READY:
                    self.ready.add(addr[0])
            if time.monotonic() >= end:
                return

    def run(self, deadline):
        wait_until = min(deadline, time.monotonic() + self.a.wait_receivers)
        while not self.expected <= self.ready and time.monotonic() < wait_until:
            self.data.sendto(self.announce_packet(), (self.group, self.port))
            self.poll(0.1)
        ready = len(self.ready & self.expected)
        stats = run_data_path(["send", "--group", self.group, "--port", str(self.port),
                               "--announce", self.announce_packet().hex(), "--rate", str(self.a.rate),
                               "--window", str(self.a.nack_window), "--receivers", ",".join(sorted(self.expected))],
                              self.m, [(os.path.join(self.m.root, f["path"]), f["size"]) for f in self.m.files],
                              (self.data, self.ctl), deadline)
        for who, (status, digest) in stats.pop("done").items():
            (self.done if status == 1 else self.failed)[who] = digest
        stats["ready_at_start"] = ready
        return stats


# ---------------------------------------------------------------- the receiver

class Receiver:
    def __init__(self, a):
        self.a = a
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # a receiver descheduled for a few ms must not lose datagrams
        rcvbuf(self.sock, 32 << 20)
        self.sock.bind(("0.0.0.0", a.port))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                             socket.inet_aton(a.group) + socket.inet_aton(a.interface or "0.0.0.0"))
        self.ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rcvbuf(self.ctl, 8 << 20)
        self.ctl.bind(("0.0.0.0", a.port + 2))
        self.m = None
        self.sender = None
        self.paths = []
        self.stats = {}

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
            os.close(fd)
            self.paths.append(path)

    def receive(self, deadline):
        """The object's bytes, by the data path; True when every file's and the whole's SHA-256 match."""
        extra = ["--test-drop-ppm", str(int(self.a.test_drop * 1e6))] if self.a.test_drop else []
        extra += ["--linger", "%g" % self.a.serve_peers]
        self.stats = run_data_path(["receive", "--sender", self.sender, "--port", str(self.a.port + 1)] + extra,
                                   self.m, zip(self.paths, (f["size"] for f in self.m.files)), (self.sock, self.ctl),
                                   deadline)
        if not self.stats.get("complete"):
            return None
        return (self.stats["files"] == [f["sha256"] for f in self.m.files]
                and self.stats["sha256"] == self.m.sha256)

    def run(self, deadline):
        t0 = time.monotonic()
        while self.m is None and time.monotonic() < deadline:
            r, _, _ = select.select([self.sock], [], [], 0.2)
            if not r:
                continue
            pkt, addr = self.sock.recvfrom(65536)
            if len(pkt) < HDR.size:
                continue
            magic, kind, _, _, oid = HDR.unpack_from(pkt)
            if magic == MAGIC and kind == ANNOUNCE and (self.a.object is None or oid.hex().startswith(self.a.object)):
                (tcp_port,) = struct.unpack_from("!H", pkt, HDR.size + 18)
                self.start(addr[0], oid, tcp_port)
                self.ctl.sendto(header(READY, self.oid), (self.sender, self.a.port + 1))
        if self.m is None:
            return EXIT_TIMEOUT, time.monotonic() - t0
        ok = self.receive(deadline)
        if ok is None:
            return EXIT_TIMEOUT, time.monotonic() - t0
        digest = bytes.fromhex(self.stats["sha256"])
        for _ in range(50):                 # until the sender counted it
            self.ctl.sendto(header(DONE, self.oid) + bytes([1 if ok else 2]) + digest, (self.sender, self.a.port + 1))
            r, _, _ = select.select([self.ctl], [], [], 0.1)
            while r:
                pkt = self.ctl.recv(65536)
                if len(pkt) >= HDR.size and HDR.unpack_from(pkt)[1] == DONEACK:
                    return (EXIT_OK if ok else EXIT_CHECKSUM), time.monotonic() - t0
                r, _, _ = select.select([self.ctl], [], [], 0)
        return (EXIT_OK if ok else EXIT_CHECKSUM), time.monotonic() - t0


def rcvbuf(sock, size):
    try:
        # beyond net.core.rmem_max when root may
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, size)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, size)


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
    s.add_argument("--rate", type=float, default=400,
                   help="the highest rate, Mbit/s (it starts at a quarter and backs off on congestion)")
    s.add_argument("--nack-window", type=int, default=30,
                   help="ms to gather the receivers' reports in a repair round after the first pass")
    s.add_argument("--wait-receivers", type=float, default=20,
                   help="seconds to wait for every receiver to be ready before streaming")
    s.add_argument("--timeout", type=float, default=600)
    r = sub.add_parser("receive", help="receive into a directory")
    r.add_argument("--out", required=True)
    r.add_argument("--group", required=True)
    r.add_argument("--object", help="only this object (a prefix of its SHA-256)")
    r.add_argument("--timeout", type=float, default=600)
    r.add_argument("--serve-peers", type=float, default=10, metavar="SECONDS",
                   help="after its copy is verified, serve repairs to slower receivers for at most this long; it "
                        "stops when the sender ends the transfer or falls silent for 2 s (0: never)")
    r.add_argument("--test-drop", type=float, default=0, help=argparse.SUPPRESS)   # drop this share (tests)
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
        st = rcv.stats
        print("distribute: %s %s in %.2f s (%d symbols, %d blocks rebuilt, %d duplicates, %d by unicast, "
              "%d reports)" % (word, rcv.m.sha256[:16] if rcv.m else "-", secs, st.get("symbols", 0),
                               st.get("decoded_blocks", 0), st.get("duplicates", 0), st.get("unicast_symbols", 0),
                               st.get("reports", 0)))
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
