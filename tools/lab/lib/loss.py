"""ebpf/loss.c on lab ports, from Python: one pinned instance, an entry per port (`struct loss_cfg`), counted."""

import json
import os
import struct
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
NO_PSN = 0xFFFFFFFF
ANY_IP = 1
ALL = 2
PREF = 3                        # before the edge rewrite (pref 20) on a receiver's port


def _sh(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True)


def _hex(b):
    return ["%02x" % x for x in b]


class Loss:
    def __init__(self, pin="/sys/fs/bpf/mcast4ai-lab-loss", keep=False):
        """keep: use the instance pinned there if there is one (its ports and entries stay; another process's)."""
        self.pin = pin
        self.ifaces = []
        if keep and os.path.exists(pin + "/prog"):
            return
        _sh("rm", "-rf", pin)
        os.makedirs(pin)
        r = _sh("bpftool", "prog", "load", os.path.join(REPO, "ebpf", "target", "loss.o"), pin + "/prog", "type",
                "classifier", "pinmaps", pin)
        if r.returncode:
            raise SystemExit("loss: loading ebpf/target/loss.o: " + r.stderr)

    def _set(self, iface, psn, times, ppm, flags):
        _sh("tc", "qdisc", "add", "dev", iface, "clsact")
        attached = _sh("tc", "filter", "show", "dev", iface, "egress", "pref", str(PREF)).stdout.strip()
        if iface not in self.ifaces and not attached:
            r = _sh("tc", "filter", "add", "dev", iface, "egress", "pref", str(PREF), "bpf", "da", "object-pinned",
                    self.pin + "/prog")
            if r.returncode:
                raise SystemExit("loss: attaching to %s: %s" % (iface, r.stderr))
            self.ifaces.append(iface)
        val = struct.pack("<IIIHHQQ", psn, times, ppm, 0, flags, 0, 0)
        r = _sh("bpftool", "map", "update", "pinned", self.pin + "/loss_cfg", "key", "hex", *_hex(self._key(iface)),
                "value", "hex", *_hex(val))
        if r.returncode:
            raise SystemExit("loss: configuring %s: %s" % (iface, r.stderr))

    @staticmethod
    def _key(iface):
        with open("/sys/class/net/%s/ifindex" % iface) as f:
            return struct.pack("<I", int(f.read()))

    def random(self, iface, ppm):
        """Every IPv4 packet leaving the port (toward its host) dropped with this chance, parts per million."""
        self._set(iface, NO_PSN, 0, ppm, ANY_IP)

    def cut(self, iface):
        """Every frame leaving the port dropped, whatever it carries: half of a cut cable."""
        self._set(iface, NO_PSN, 0, 1000000, ALL)

    def uncut(self, iface):
        """The port passes everything again."""
        _sh("tc", "filter", "del", "dev", iface, "egress", "pref", str(PREF))
        _sh("bpftool", "map", "delete", "pinned", self.pin + "/loss_cfg", "key", "hex", *_hex(self._key(iface)))
        if iface in self.ifaces:
            self.ifaces.remove(iface)

    def psn(self, iface, psn, times=1):
        """The RoCEv2 data packet with this PSN dropped this many times."""
        self._set(iface, psn, times, 0, 0)

    def dropped(self):
        r = _sh("bpftool", "-j", "map", "dump", "pinned", self.pin + "/loss_cfg")
        try:
            return sum(e["formatted"]["value"]["dropped"] for e in json.loads(r.stdout))
        except (ValueError, KeyError):
            return 0

    def clear(self):
        """Detached from every port, its entries gone; the program stays loaded."""
        for i in self.ifaces:
            _sh("tc", "filter", "del", "dev", i, "egress", "pref", str(PREF))
            _sh("bpftool", "map", "delete", "pinned", self.pin + "/loss_cfg", "key", "hex", *_hex(self._key(i)))
        self.ifaces = []

    def close(self):
        self.clear()
        _sh("rm", "-rf", self.pin)
