"""The distribution tool's pure parts: the object's layout over files, the manifest, the data path's file list."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distribute  # noqa: E402


class ManifestTest(unittest.TestCase):

    def test_a_directory_is_its_files_in_order_and_payloads_cross_file_boundaries(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "shards"))
            p = distribute.PAYLOAD
            # the second file sits inside the third datagram, the third ends one byte into the fifth
            data = {"a.bin": os.urandom(2 * p + 104), "shards/b.bin": os.urandom(1), "shards/c.bin": os.urandom(2 * p + 1)}
            for name, b in data.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(b)
            m = distribute.Manifest.of(d)
            self.assertEqual(["a.bin", "shards/b.bin", "shards/c.bin"], [f["path"] for f in m.files])
            self.assertEqual(4 * p + 106, m.size)
            self.assertEqual(5, m.total)
            self.assertEqual([0, 2 * p + 104, 2 * p + 105], [f["offset"] for f in m.files])
            joined = data["a.bin"] + data["shards/b.bin"] + data["shards/c.bin"]
            self.assertEqual(m.sha256, distribute.hashlib.sha256(joined).hexdigest())
            back = distribute.Manifest.from_json(m.to_json())
            self.assertEqual((m.oid, m.block, m.total), (back.oid, back.block, back.total))

    def test_a_manifest_this_receiver_cannot_take_is_refused_by_name(self):
        bad = '{"files": [], "sha256": "%s", "payload": 8000, "block": 64}' % ("0" * 64)
        with self.assertRaises(SystemExit) as e:
            distribute.Manifest.from_json(bad)
        self.assertIn("8000-byte symbols", str(e.exception))

    def test_the_files_list_names_every_file_with_its_size(self):
        path = distribute.files_list([("/a b/c", 5), ("/d", 0)])
        try:
            with open(path) as f:
                self.assertEqual("5\t/a b/c\n0\t/d\n", f.read())
        finally:
            os.unlink(path)


class CodeTest(unittest.TestCase):
    """The data path's Reed-Solomon code: every k from 1 to 128 and random ones, random data lost, random repair
    rows held, each block rebuilt and compared (fast/m4d selftest)."""

    def test_any_k_symbols_rebuild_the_block(self):
        r = subprocess.run([distribute.data_path(), "selftest", "1500"], capture_output=True, text=True, timeout=120)
        self.assertEqual(0, r.returncode, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"blocks=1500 erasures=\d+ failed=0")


if __name__ == "__main__":
    unittest.main()
