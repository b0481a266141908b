"""The RC emulators' frames against scapy and tshark: data, ACK, NAK and CNP, valid ICRC, fields as decoded by
an independent dissector; and the endpoints' rules on a scripted exchange (no network)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rc  # noqa: E402
import roce  # noqa: E402

A = ("02:00:00:00:01:01", "10.77.1.1")
VP = ("02:6d:34:fe:00:07", "10.254.0.7")


def data(psn, body=b"x" * 64, qpn=0x100400):
    return rc.frame(A[0], VP[0], A[1], VP[1], rc.OP_SEND_ONLY, qpn, psn, body)


class FrameTest(unittest.TestCase):

    def frames(self):
        return [data(0xFFFFFE), rc.frame(VP[0], A[0], VP[1], A[1], rc.OP_ACK, 51, 77, rc.aeth(0x1F, 12)),
                rc.frame(VP[0], A[0], VP[1], A[1], rc.OP_ACK, 51, 78, rc.aeth(rc.SYN_NAK_SEQ, 12)),
                rc.frame(VP[0], A[0], VP[1], A[1], rc.OP_CNP, 51, 0, bytes(16))]

    def test_every_frame_has_the_icrc_scapy_computes(self):
        for f in self.frames():
            self.assertTrue(roce.parse(f).icrc_ok)
            self.assertTrue(roce.scapy_check(f)[3])

    def test_a_changed_byte_breaks_the_icrc(self):
        f = bytearray(data(5))
        f[-10] ^= 1
        self.assertFalse(roce.parse(bytes(f)).icrc_ok)

    @unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
    def test_tshark_decodes_what_was_built(self):
        from scapy.layers.l2 import Ether
        from scapy.utils import wrpcap
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rc.pcap")
            wrpcap(path, [Ether(f) for f in self.frames()])
            rows = subprocess.run(["tshark", "-r", path, "-T", "fields", "-E", "separator=,", "-e",
                                   "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn",
                                   "-e", "infiniband.aeth.syndrome", "-e", "infiniband.aeth.msn"],
                                  capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(["4,0x100400,16777214,,", "17,0x000033,77,31,12", "17,0x000033,78,96,12",
                          "129,0x000033,0,,"], rows)


class EndpointTest(unittest.TestCase):
    """A responder's rules, driven with frames as the edge delivers them (sockets replaced by a list)."""

    def responder(self, every=2):
        r = rc.Responder.__new__(rc.Responder)
        cfg = dict(host="10.77.2.1", ip="10.77.2.1", mac="02:00:00:00:02:01", qpn=18, peerQpn=0x100000,
                   joinPsn=100, ackEvery=every, ackDelayMs=1, ns=None, iface=None)
        r.cfg, r.name, r.ip, r.mac, r.qpn, r.peer_qpn = cfg, cfg["host"], cfg["ip"], cfg["mac"], 18, 0x100000
        r.vp_ip, r.vp_mac = VP[1], VP[0]
        r.expected, r.acked_sent, r.ack_every, r.ack_delay = 100, 99, every, 0.001
        r.kill_after = r.cnp_after = None
        r.cnp_burst, r.active, r.msn, r.pending, r.last_ack, r.nak_open, r.dup_run, r.alive = 0, True, 0, 0, 0, \
            False, 0, True
        r.started_at = 0
        r.stats = dict(delivered=0, duplicates=0, out_of_order=0, icrc_bad=0, strays=0, acks=0, naks=0, nak_psns=[],
                       cnps=0, killed=False)
        sent = []
        r.send = lambda op, psn, body: sent.append((op, psn, body[0] if body else None))
        return r, sent

    def copy(self, psn, qpn=18):
        return rc.frame(VP[0], "02:00:00:00:02:01", VP[1], "10.77.2.1", rc.OP_SEND_ONLY, qpn, psn, b"y" * 32)

    def test_coalesced_acks_one_nak_per_gap_and_a_reack_of_duplicates(self):
        r, sent = self.responder()
        for p in (100, 101, 102):
            r.on_frame(self.copy(p), 1.0)
        self.assertEqual([(rc.OP_ACK, 101, 0x1F)], sent)           # one ACK for two packets
        r.on_frame(self.copy(104), 1.0)
        r.on_frame(self.copy(105), 1.0)
        self.assertEqual((rc.OP_ACK, 103, rc.SYN_NAK_SEQ), sent[-1])  # PSN sequence error, once
        self.assertEqual(2, len(sent))
        r.on_frame(self.copy(103), 1.0)
        r.on_frame(self.copy(101), 1.0)                              # a retransmitted duplicate: re-ACK
        self.assertEqual((rc.OP_ACK, 103, 0x1F), sent[-1])
        self.assertEqual(4, r.stats["delivered"])
        self.assertEqual(1, r.stats["naks"])
        r.on_frame(self.copy(104, qpn=19), 1.0)                      # another QP's copy is a stray
        self.assertEqual(1, r.stats["strays"])
        bad = bytearray(self.copy(104))
        bad[-1] ^= 0xFF
        r.on_frame(bytes(bad), 1.0)                                  # a wrong ICRC is dropped, as an RNIC does
        self.assertEqual(1, r.stats["icrc_bad"])
        self.assertEqual(4, r.stats["delivered"])

    def test_serial_arithmetic_wraps(self):
        self.assertTrue(rc.serial_lt(0xFFFFFF, 0))
        self.assertFalse(rc.serial_lt(0, 0xFFFFFF))
        self.assertFalse(rc.serial_lt(5, 5))


if __name__ == "__main__":
    unittest.main()
