"""The distribution tool's pure parts: the sparse set of received datagrams, and the object's layout over files."""

import os
import random
import sys
import tempfile
import types
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


class RateTest(unittest.TestCase):
    """The sender's rate against the receivers' NACKs, checkpoint window by window (repair with adapt)."""

    def sender(self, receivers):
        s = object.__new__(distribute.Sender)
        s.expected = set(receivers)
        s.catchup = set()
        s.max_rate = 200e6 / 8
        s.rate = s.max_rate / 4
        s.slow_start = True
        s.recent = []
        s.stats = {}
        s.send = lambda seq, repair=False: None
        s.m = types.SimpleNamespace(total=10 ** 6)
        s.a = types.SimpleNamespace(catchup=0.25)
        return s

    def window(self, s, losses):
        nacks = {who: [(0, int(share * distribute.CHECKPOINT))] for who, share in losses.items() if share}
        s.repair(nacks, adapt=True, window=distribute.CHECKPOINT)

    def test_lossy_links_do_not_collapse_the_rate(self):
        # both receivers behind links losing 5 % whatever the rate; the first checkpoint comes before any NACK
        s = self.sender(["a", "b"])
        rnd = random.Random(7)
        self.window(s, {})
        for _ in range(40):
            self.window(s, {"a": rnd.gauss(0.05, 0.007), "b": rnd.gauss(0.05, 0.007)})
        self.assertGreater(s.rate, s.max_rate / 2, "a link's steady loss is not congestion")

    def test_congestion_cuts_the_rate(self):
        s = self.sender(["a", "b", "c"])
        for _ in range(6):
            self.window(s, {"a": 0.01, "b": 0.01, "c": 0.01})
        before = s.rate
        for _ in range(3):
            self.window(s, {"a": 0.2, "b": 0.25, "c": 0.3})
        self.assertLess(s.rate, before * 0.5, "most receivers losing far above the floor is congestion")

    def test_a_window_without_nacks_grows_the_rate(self):
        s = self.sender(["a", "b"])
        start = s.rate
        for _ in range(4):
            self.window(s, {})
        self.assertEqual(min(s.max_rate, start * 1.5 ** 4), s.rate)
        self.assertEqual([], s.recent, "no NACK is no measurement of the links")
