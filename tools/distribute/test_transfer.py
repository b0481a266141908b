"""mcast4ai-distribute end to end with real packets: a sender and receivers in network namespaces on a Linux bridge
(the fabric's replication without a controller: the group is given with --group), the compiled data path, loss
at the receivers, a receiver that starts after the transfer did, and an object of several files whose boundaries
fall inside datagrams and blocks. Needs root (skipped otherwise) and gcc, libisal-dev, libssl-dev."""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "distribute.py")
GROUP = "239.77.9.9"
HOSTS = 5                                   # h0 sends, h1..h4 receive


def sh(*cmd):
    subprocess.run(list(cmd), check=True, capture_output=True)


def ip(i):
    return "10.99.0.%d" % (i + 1)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("ip"), "needs root and iproute2 for network namespaces")
class TransferTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.teardown_net()
        sh("ip", "netns", "add", "m4dt-br")
        sh("ip", "-n", "m4dt-br", "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        sh("ip", "-n", "m4dt-br", "link", "set", "br0", "up")
        for i in range(HOSTS):
            ns = "m4dt-h%d" % i
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", "m4dt-v%d" % i, "netns", "m4dt-br", "type", "veth", "peer", "name", "eth0",
               "netns", ns)
            sh("ip", "-n", "m4dt-br", "link", "set", "m4dt-v%d" % i, "master", "br0", "up")
            sh("ip", "-n", ns, "addr", "add", ip(i) + "/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        cls.work = tempfile.mkdtemp(prefix="m4dt-")
        # an object whose file boundaries fall inside datagrams and blocks, an empty file among them
        cls.obj = os.path.join(cls.work, "obj")
        rnd = random.Random(36)
        for name, size in [("a.bin", 3_000_001), ("shards/b.bin", 1), ("shards/empty", 0),
                           ("shards/c.bin", 1_448 * 64 * 3 + 17)]:
            path = os.path.join(cls.obj, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(rnd.randbytes(size))

    @classmethod
    def tearDownClass(cls):
        cls.teardown_net()
        shutil.rmtree(cls.work, ignore_errors=True)

    @staticmethod
    def teardown_net():
        for i in range(HOSTS):
            subprocess.run(["ip", "netns", "del", "m4dt-h%d" % i], capture_output=True)
        subprocess.run(["ip", "netns", "del", "m4dt-br"], capture_output=True)

    def transfer(self, drop=(0, 0, 0, 0), late=(), wait=10, rate=200, port=48400, serve=None):
        procs, outs = {}, {}

        def receiver(i):
            out = os.path.join(self.work, "rx%d-%d" % (i, port))
            shutil.rmtree(out, ignore_errors=True)
            outs[i] = out
            cmd = ["ip", "netns", "exec", "m4dt-h%d" % i, sys.executable, TOOL, "receive", "--out", out, "--group",
                   GROUP, "--interface", ip(i), "--port", str(port), "--timeout", "60", "--stats", out + ".json"]
            if drop[i - 1]:
                cmd += ["--test-drop", str(drop[i - 1])]
            if serve is not None:
                cmd += ["--serve-peers", str(serve)]
            procs[i] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        for i in range(1, HOSTS):
            if i not in late:
                receiver(i)
        stats = os.path.join(self.work, "tx-%d.json" % port)
        sender = subprocess.Popen(["ip", "netns", "exec", "m4dt-h0", sys.executable, TOOL, "send", self.obj,
                                   "--group", GROUP, "--receivers", ",".join(ip(i) for i in range(1, HOSTS)),
                                   "--interface", ip(0), "--rate", str(rate), "--port", str(port),
                                   "--wait-receivers", str(wait), "--timeout", "60", "--stats", stats],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if late:
            time.sleep(wait + 2.0)          # the stream has passed it by: the sender stopped waiting
            for i in late:
                receiver(i)
        out, _ = sender.communicate(timeout=90)
        logs = {i: p.communicate(timeout=90)[0] for i, p in procs.items()}
        self.assertEqual(0, sender.returncode, out + "".join(logs.values()))
        for i, p in procs.items():
            self.assertEqual(0, p.returncode, logs[i])
            diff = subprocess.run(["diff", "-r", self.obj, outs[i]], capture_output=True, text=True)
            self.assertEqual("", diff.stdout + diff.stderr, "receiver %d's copy differs" % i)
        with open(stats) as f:
            tx = json.load(f)
        rx = {}
        for i, o in outs.items():
            with open(o + ".json") as f:
                rx[i] = json.load(f)
        return tx, rx

    def size(self):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(self.obj) for f in fs)

    def test_a_clean_fabric_sends_the_object_once(self):
        tx, rx = self.transfer(port=48400)
        self.assertEqual(4, tx["verified"])
        self.assertEqual(0, tx["fec_symbols"], "no loss reported: no repair symbols sent ahead")
        self.assertLess(tx["bytes"] / self.size(), 1.03, "one copy plus headers")
        for r in rx.values():
            self.assertEqual(0, r["decoded_blocks"])

    def test_loss_at_every_receiver_is_rebuilt_by_the_code(self):
        tx, rx = self.transfer(drop=(0.05, 0.05, 0.05, 0.05), port=48410)
        self.assertEqual(4, tx["verified"])
        self.assertGreater(tx["fec_symbols"], 0, "repair symbols ahead, for the loss the receivers report")
        for r in rx.values():
            self.assertGreater(r["decoded_blocks"], 0, "blocks rebuilt from repair symbols")
            self.assertGreater(r["first_pass_loss"], 0.03)
        # repairs by multicast serve every receiver at once: far less than the four receivers' losses together
        lost = sum(r["test_dropped"] for r in rx.values())
        self.assertLess(tx["fec_symbols"] + tx["repair_datagrams"], 0.6 * lost)

    def test_one_lossy_receiver_is_repaired_by_unicast(self):
        tx, rx = self.transfer(drop=(0.05, 0, 0, 0), port=48420)
        self.assertEqual(4, tx["verified"])
        self.assertGreater(rx[1]["unicast_symbols"], 0)
        self.assertGreater(tx["repair_unicast"], 0)

    def test_a_receiver_that_starts_late_gets_the_rest_from_its_peers(self):
        tx, rx = self.transfer(late=(4,), wait=1, port=48430)
        self.assertEqual(4, tx["verified"])
        self.assertGreater(rx[4]["peer_symbols"], 0, "what passed it by, from receivers that have it")
        # symbols a peer was asked for arrive (those still on the way when the copy completed are not counted)
        self.assertGreaterEqual(rx[4]["peer_symbols"], 0.9 * tx["repair_peer"])
        # the sender pays control datagrams for it, not the symbols
        self.assertLess(tx["repair_unicast"], 0.1 * rx[4]["peer_symbols"])
        self.assertLess(tx["bytes"] / self.size(), 1.2)

    def test_without_peers_the_sender_serves_the_late_receiver(self):
        tx, rx = self.transfer(late=(4,), wait=1, port=48440, serve=0)
        self.assertEqual(4, tx["verified"])
        self.assertEqual(0, tx["repair_peer"])
        self.assertEqual(0, rx[4]["peer_symbols"])
        self.assertGreater(rx[4]["unicast_symbols"], 0, "what passed it by, to it alone")

    def test_peers_that_left_are_replaced_by_the_sender(self):
        # peers that say they serve but leave at once: what they were asked for never comes, the sender sends it
        tx, rx = self.transfer(late=(4,), wait=1, port=48450, serve=0.01)
        self.assertEqual(4, tx["verified"])
        self.assertGreater(tx["repair_peer"], 0)
        self.assertEqual(0, rx[4]["peer_symbols"])
        self.assertGreater(tx["repair_unicast"], 0)


if __name__ == "__main__":
    unittest.main()
