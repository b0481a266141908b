"""Known-answer tests of the RoCEv2 builder/parser against scapy and tshark.

Run with `/usr/bin/python3 -m unittest discover -s tools/traffic`.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deliver  # noqa: E402
import roce  # noqa: E402


class RoceTest(unittest.TestCase):

    def frame(self, psn=77, opcode="ud"):
        return roce.build("02:00:00:00:01:01", "10.77.1.1", "239.77.0.1", 0x123, psn, opcode, b"payload")

    def test_multicast_mac_keeps_the_low_23_bits(self):
        self.assertEqual("01:00:5e:4d:00:01", roce.multicast_mac("239.77.0.1"))
        self.assertEqual("01:00:5e:7f:ff:ff", roce.multicast_mac("239.255.255.255"))
        with self.assertRaises(ValueError):
            roce.multicast_mac("10.0.0.1")

    def test_parser_reads_what_scapy_built(self):
        for opcode, code in (("ud", 0x64), ("rc", 0x04)):
            p = roce.parse(self.frame(psn=0xFFFFFE, opcode=opcode))
            self.assertEqual((code, 0x123, 0xFFFFFE, True), (p.opcode, p.dqpn, p.psn, p.icrc_ok))
            self.assertEqual(("10.77.1.1", "239.77.0.1"), (p.src_ip, p.dst_ip))

    def test_icrc_matches_scapy_and_ignores_mutable_fields(self):
        f = bytearray(self.frame())
        self.assertEqual((0x64, 0x123, 77, True), roce.scapy_check(bytes(f)))
        f[14 + 8] = 3            # TTL: routers change it, the ICRC must not
        self.assertTrue(roce.parse(bytes(f)).icrc_ok)
        f[-6] ^= 0x01            # payload bit flip
        self.assertFalse(roce.parse(bytes(f)).icrc_ok)
        self.assertFalse(roce.scapy_check(bytes(f))[3])
        g = bytearray(self.frame())
        g[14 + 20 + 8 + 11] ^= 0x01  # PSN changed without a new ICRC
        self.assertFalse(roce.parse(bytes(g)).icrc_ok)

    def test_unrelated_frames_are_not_parsed(self):
        f = bytearray(self.frame())
        f[14 + 20 + 2:14 + 20 + 4] = (4792).to_bytes(2, "big")
        self.assertIsNone(roce.parse(bytes(f)))
        self.assertIsNone(roce.parse(b"\xff" * 60))

    @unittest.skipUnless(shutil.which("tshark"), "tshark not installed")
    def test_tshark_decodes_the_bth(self):
        from scapy.layers.l2 import Ether
        from scapy.utils import wrpcap
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "roce.pcap")
            wrpcap(path, [Ether(self.frame(psn=4242))])
            out = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "ip.dst", "-e",
                                  "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e",
                                  "infiniband.bth.psn", "-e", "infiniband.deth.srcqp"],
                                 capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(["239.77.0.1", "100", "0x000123", "4242", "0x00000001"], out)


class JudgeTest(unittest.TestCase):

    def host(self, psns, icrc_errors=0):
        return {"received": len(psns), "distinct": len(set(psns)),
                "duplicates": len(psns) - len(set(psns)), "icrcErrors": icrc_errors,
                "decodeErrors": 0, "_psns": set(psns)}

    def test_counts_delivered_duplicates_and_strays(self):
        sent = [5, 6, 7]
        results = {"h1": self.host([5]), "h2": self.host([5, 6, 7]), "h3": self.host([5, 6, 7, 7]),
                   "h4": self.host([5, 6]), "h5": self.host([5, 6, 7], icrc_errors=1),
                   "h6": self.host([5, 6, 7])}
        summary = deliver.judge(results, sent, "h1", {"h2", "h3", "h4", "h5"})
        self.assertEqual({"receivers": 4, "delivered": 1, "duplicates": 1, "strays": 4}, summary)
        self.assertEqual(1, results["h4"]["missing"])
        self.assertEqual(("source", "member", "other"),
                         (results["h1"]["role"], results["h2"]["role"], results["h6"]["role"]))


if __name__ == "__main__":
    unittest.main()
