"""The distribution tool's pure parts: the sparse set of received datagrams, and the object's layout over files."""

import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distribute  # noqa: E402


class RangesTest(unittest.TestCase):

    def test_against_a_set_with_random_arrivals(self):
        rnd = random.Random(7)
        total = 5000
        r = distribute.Ranges()
        held = set()
        for _ in range(4000):
            s = rnd.randrange(total)
            n = rnd.choice([1, 1, 1, 3, 17])
            r.add(s, min(total, s + n))
            held.update(range(s, min(total, s + n)))
            if rnd.random() < 0.05:
                self.assertEqual(len(held), r.count())
                missing = [x for a, n in r.missing(total) for x in range(a, a + n)]
                self.assertEqual(sorted(set(range(total)) - held), missing)
                x = rnd.randrange(total)
                self.assertEqual(x in held, r.has(x))
        # merged: as many ranges as runs
        runs = sum(1 for x in range(total) if x in held and (x - 1) not in held)
        self.assertEqual(runs, len(r.starts))

    def test_a_terabyte_in_megabyte_chunks_is_a_few_ranges(self):
        r = distribute.Ranges()
        total = 1 << 20
        for s in range(0, total, 4096):
            r.add(s, s + 4095)      # every 4096th chunk lost
        self.assertEqual(256, len(r.starts))
        self.assertEqual(80, len(r.missing(total, 80)))


class ManifestTest(unittest.TestCase):

    def test_a_directory_is_its_files_in_order_and_payloads_cross_file_boundaries(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "shards"))
            data = {"a.bin": os.urandom(3000), "shards/b.bin": os.urandom(1), "shards/c.bin": os.urandom(2801)}
            for name, b in data.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(b)
            m = distribute.Manifest.of(d)
            self.assertEqual(["a.bin", "shards/b.bin", "shards/c.bin"], [f["path"] for f in m.files])
            self.assertEqual(5802, m.size)
            self.assertEqual(5, m.total)
            rd = distribute.Reader(m)
            joined = b"".join(rd.payload(s) for s in range(m.total))
            self.assertEqual(data["a.bin"] + data["shards/b.bin"] + data["shards/c.bin"], joined)
            self.assertEqual(m.sha256, distribute.hashlib.sha256(joined).hexdigest())
            back = distribute.Manifest.from_json(m.to_json())
            self.assertEqual(m.oid, back.oid)
            self.assertEqual(list(m.pieces(2800, 400)), [(0, 2800, 200), (1, 0, 1), (2, 0, 199)])


if __name__ == "__main__":
    unittest.main()
