"""Tests of the lab's fabric descriptions: run with `/usr/bin/python3 -m unittest discover -s tools/lab/lib`."""

import collections
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402
import topology  # noqa: E402


def adjacency(desc):
    adj = collections.defaultdict(set)
    for ln in desc["links"]:
        adj[ln["a"]].add(ln["b"])
        adj[ln["b"]].add(ln["a"])
    return adj


class LeafSpineTest(unittest.TestCase):

    def test_default_matches_the_contract_example(self):
        d = topology.leafspine()
        self.assertEqual("leafspine-2s-4l-2h", d["name"])
        self.assertEqual({"name": "leaf1", "bridge": "m4leaf1", "dpid": "0000000000000101",
                          "deviceId": "of:0000000000000101", "role": "LEAF"}, d["switches"][0])
        self.assertIn({"a": "of:0000000000000101", "aPort": 3, "aBridge": "m4leaf1",
                       "b": "of:0000000000000201", "bPort": 1, "bBridge": "m4spine1"}, d["links"])
        self.assertEqual({"name": "h1", "ns": "m4h1", "iface": "eth0", "mac": "02:00:00:00:01:01",
                          "ip": "10.77.1.1", "deviceId": "of:0000000000000101", "port": 1}, d["hosts"][0])

    def test_every_leaf_links_to_every_spine_once(self):
        d = topology.leafspine(3, 5, 2)
        adj = adjacency(d)
        leaves = [s["deviceId"] for s in d["switches"] if s["role"] == "LEAF"]
        spines = {s["deviceId"] for s in d["switches"] if s["role"] == "SPINE"}
        self.assertEqual(15, len(d["links"]))
        for leaf in leaves:
            self.assertEqual(spines, adj[leaf])
        self.assertEqual(10, len(d["hosts"]))

    def test_out_of_range_sizes_are_refused(self):
        with self.assertRaises(topology.TopologyError):
            topology.leafspine(0, 4, 2)
        with self.assertRaises(topology.TopologyError):
            topology.leafspine(2, 300, 2)


class FatTreeTest(unittest.TestCase):

    def test_k4_has_the_textbook_shape(self):
        d = topology.fattree(4)
        roles = collections.Counter(s["role"] for s in d["switches"])
        self.assertEqual({"LEAF": 8, "SPINE": 8, "SUPER_SPINE": 4}, dict(roles))
        self.assertEqual(32, len(d["links"]))
        self.assertEqual(16, len(d["hosts"]))
        adj = adjacency(d)
        role = {s["deviceId"]: s["role"] for s in d["switches"]}
        for dev, r in role.items():
            self.assertEqual(2 if r == "LEAF" else 4, len(adj[dev]), dev)
        # every core reaches all four pods, one aggregation switch each
        for dev, r in role.items():
            if r == "SUPER_SPINE":
                self.assertEqual(4, len(adj[dev]))

    def test_odd_k_is_refused(self):
        with self.assertRaises(topology.TopologyError):
            topology.fattree(3)


class PortsTest(unittest.TestCase):

    def check_ports(self, d):
        seen = set()
        for bridge, port, kind, peer in topology.switch_ports(d):
            self.assertNotIn((bridge, port), seen)
            seen.add((bridge, port))
        names = [topology.patch_name(b, p) for b, p, k, _ in topology.switch_ports(d) if k == "patch"]
        names += [topology.host_veth(h) for h in d["hosts"]]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(all(len(n) <= 15 for n in names), "interface names fit IFNAMSIZ")
        macs = [h["mac"] for h in d["hosts"]]
        self.assertEqual(len(macs), len(set(macs)))
        dpids = [s["dpid"] for s in d["switches"]]
        self.assertEqual(len(dpids), len(set(dpids)))

    def test_ports_names_and_addresses_are_unique(self):
        for d in (topology.leafspine(), topology.leafspine(4, 16, 8), topology.fattree(4),
                  topology.fattree(8)):
            with self.subTest(d["name"]):
                self.check_ports(d)

    def test_transaction_requests_every_port_number(self):
        d = topology.leafspine()
        cmd = " ".join(fabric.ovs_transaction(d))
        self.assertEqual(6, cmd.count(" add-br "))
        self.assertEqual(16 + 8, cmd.count(" add-port "))
        self.assertIn("set interface m4leaf1-3 type=patch options:peer=m4spine1-1 ofport_request=3", cmd)
        self.assertIn("set interface m4h1-eth0 ofport_request=1", cmd)
        self.assertIn("datapath_type=netdev fail_mode=secure protocols=OpenFlow13,OpenFlow14,OpenFlow15", cmd)


if __name__ == "__main__":
    unittest.main()
