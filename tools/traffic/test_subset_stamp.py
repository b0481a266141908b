"""Known answers of the BITMAP subset encoder, taken from EthSrcBitmapTest and the REST tests.

Run with `/usr/bin/python3 -m unittest discover -s tools/traffic -p 'test_subset*.py'`.
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import subset_stamp  # noqa: E402

BITMAP = {"groupId": 7, "mode": "BITMAP", "carrier": "eth_src",
          "receivers": [{"host": "00:00:00:00:02:01/None", "bit": 2},
                        {"host": "00:00:00:00:03:01/None", "bit": 4},
                        {"host": "00:00:00:00:04:02/None", "bit": 7}],
          "groupBits": "0x94", "stampMac": "02:00:00:00:00:94"}


class SubsetStampTest(unittest.TestCase):

    def test_same_encoding_as_eth_src_bitmap(self):
        # EthSrcBitmapTest.knownAddresses
        self.assertEqual("02:00:00:00:00:01", subset_stamp.stamp(1))
        self.assertEqual("02:80:00:00:00:00", subset_stamp.stamp(1 << 39))
        self.assertEqual("06:00:00:00:00:00", subset_stamp.stamp(1 << 40))
        self.assertEqual("82:00:00:00:00:00", subset_stamp.stamp(1 << 45))
        with self.assertRaises(ValueError):
            subset_stamp.stamp(1 << 46)

    def test_whole_group_is_the_stamp_the_service_reports(self):
        self.assertEqual(BITMAP["stampMac"], subset_stamp.stamp(subset_stamp.subset_bits(BITMAP, [])))

    def test_subset_is_the_or_of_its_receivers_bits(self):
        bits = subset_stamp.subset_bits(BITMAP, ["00:00:00:00:02:01/None", "00:00:00:00:04:02"])
        self.assertEqual((1 << 2) | (1 << 7), bits)
        self.assertEqual("02:00:00:00:00:84", subset_stamp.stamp(bits))

    def test_a_host_outside_the_group_is_refused(self):
        with self.assertRaises(ValueError):
            subset_stamp.subset_bits(BITMAP, ["00:00:00:00:01:02"])

    def test_command_line_prints_the_mac_or_one_error_line(self):
        out, err = io.StringIO(), io.StringIO()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bitmap.json")
            with open(path, "w") as f:
                json.dump(BITMAP, f)
            with redirect_stdout(out), redirect_stderr(err):
                self.assertEqual(0, subset_stamp.main(["x", path, "00:00:00:00:03:01"]))
                self.assertEqual(1, subset_stamp.main(["x", path, "nobody"]))
        self.assertEqual("02:00:00:00:00:10\n", out.getvalue())
        self.assertEqual(1, len(err.getvalue().strip().splitlines()), err.getvalue())


if __name__ == "__main__":
    unittest.main()
