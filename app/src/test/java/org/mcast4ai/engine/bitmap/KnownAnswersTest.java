package org.mcast4ai.engine.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The known-answer vectors of the version 2 data plane in {@code models/p4/vectors/}: for each scenario the
 * static table of every switch and, per switch a packet reaches, the frame in (port, bytes) and the frames
 * out (port, bytes), produced by the engine's per-hop rule. The files must equal what the rule gives now;
 * {@code -Dmcast4ai.vectors.write=true} writes them again after a deliberate change.
 */
class KnownAnswersTest {
    private static final Path DIR = Paths.get("..", "models", "p4", "vectors");
    private static final byte[] GROUP_MAC = {0x33, 0x33, 0x00, 0x4d, 0x00, 0x2a};
    private static final byte[] SENDER_MAC = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
    private static final int ETHERTYPE_MCAST4AI = 0x88B5;
    /** The program's CPU port ({@code CPU_PORT}). */
    private static final int CPU_PORT = 255;
    /** A reliable group's receivers: one on the source's leaf, one in its pod, two beyond; the last is plain. */
    private static final String[] RELIABLE = {"h1-1-2", "h2-1-1", "h3-2-2", "h4-1-2"};
    /** A group its sender addresses by subset addresses: one receiver on the source's leaf, the rest spread. */
    private static final String[] SUBSET_GROUP = {"h1-1-2", "h1-2-1", "h2-1-1", "h2-2-2", "h3-1-2", "h3-2-1",
        "h4-1-1", "h4-2-2"};

    @Test
    void vectorsMatchThePerHopRule() throws IOException {
        Map<String, String> vectors = new LinkedHashMap<>();
        FabricSnapshot k4 = FabricGenerators.fatTree(4);
        Random rnd = new Random(4);
        int source = k4.hostIndex("h1-1-1");
        vectors.put("fattree4-random", scenario("fat tree k=4, 6 receivers at random", k4, k4, source,
                Groups.random(k4, 6, source, rnd), 0x1234));
        vectors.put("fattree4-racks", scenario("fat tree k=4, the racks of edge2-1, edge2-2 and edge3-1 (POD and"
                        + " RACK entries)", k4, k4, source,
                hosts(k4, "h2-1-1", "h2-1-2", "h2-2-1", "h2-2-2", "h3-1-1", "h3-1-2"), 0x0001));
        FabricSnapshot cut = FabricGenerators.withoutLinks(k4, (a, b) ->
                a.equals("agg3-1") && b.equals("core1-1") || a.equals("core1-1") && b.equals("agg3-1"));
        vectors.put("fattree4-failed-link", scenario("fat tree k=4 without the link agg3-1 to core1-1: the"
                        + " tables route pod 3 around it", k4, cut, source,
                hosts(k4, "h3-1-1", "h3-2-2", "h4-1-1"), 0x0000));
        // pod 2 only through agg1-1 (agg2-2 lost both its core links), pod 3 only through agg1-2 (agg3-1 lost
        // both): no uplink of edge1-1 reaches both, so the copy up is split between its two uplinks
        Set<String> cuts = Set.of("agg2-2|core2-1", "agg2-2|core2-2", "agg3-1|core1-1", "agg3-1|core1-2");
        FabricSnapshot split = FabricGenerators.withoutLinks(k4, (a, b) -> cuts.contains(a + "|" + b)
                || cuts.contains(b + "|" + a));
        vectors.put("fattree4-split", scenario("fat tree k=4 where pod 2 is reachable only through agg1-1 and"
                        + " pod 3 only through agg1-2: the source leaf splits the copy up between its uplinks", k4,
                split, source, hosts(k4, "h2-1-1", "h2-2-2", "h3-1-2", "h3-2-1"), 0x0000));
        FabricSnapshot ls = FabricGenerators.leafSpine(2, 4, 3);
        int lsSource = 0;
        vectors.put("leafspine-random", scenario("leaf-spine of 2 spines and 4 leaves of 3 hosts, 5 receivers",
                ls, ls, lsSource, Groups.random(ls, 5, lsSource, new Random(5)), 0x0102));
        // 24 uplinks per leaf (a k=48 leaf's): the entropy picks uplink 17
        FabricSnapshot ls24 = FabricGenerators.leafSpine(24, 4, 2);
        vectors.put("leafspine24-random", scenario("leaf-spine of 24 spines and 4 leaves of 2 hosts, 4 receivers, the"
                + " copy up by uplink 17", ls24, ls24, 0, Groups.random(ls24, 4, 0, new Random(24)), 0x0011));
        // a partial leaf (LEAF), a whole rack (RACK) and receivers on many leaves of few blocks (BLOCK sections
        // of up to 12 entries) on a fabric of four blocks of bit indices
        FabricSnapshot k16 = FabricGenerators.fatTree(16);
        List<String> mixed = new ArrayList<>(List.of("h2-1-1", "h2-1-2", "h2-1-3", "h2-1-4", "h2-1-5",
                "h6-3-2", "h13-1-1", "h14-2-2", "h15-3-3", "h16-8-8"));
        for (int r = 1; r <= 8; r++) {
            mixed.add("h3-2-" + r);
        }
        for (int i = 0; i < 17; i++) {
            mixed.add("h" + (9 + i % 4) + "-" + (1 + (i / 4 + (i % 4) * 2) % 8) + "-" + (1 + i % 8));
        }
        // one receiver on every leaf of pods 5 to 16: three blocks of 32 entries each, one more than a BLOCK
        // section holds, so all 96 go as HOST entries in four HOST sections; the switches of the source's pod
        List<String> hostSections = new ArrayList<>();
        for (int pod = 5; pod <= 16; pod++) {
            for (int l = 1; l <= 8; l++) {
                hostSections.add("h" + pod + "-" + l + "-" + (1 + (pod + l) % 8));
            }
        }
        BitIndexTable k16bits = BitIndexTable.forFabric(k16);
        vectors.put("fattree16-host-sections", render("fat tree k=16, 96 receivers in four HOST sections (31, 31, 31"
                + ", 3): the source's pod", k16, k16, k16bits, k16.hostIndex("h1-1-1"), hosts(k16, hostSections
                .toArray(new String[0])), new HeaderV2Planner(k16bits.geometry()).planHosts(k16bits.hostBits(k16),
                hosts(k16, hostSections.toArray(new String[0])), 0x0c0d), inner(0x0c0d), false, Hosts.PLAIN,
                name -> name.equals("edge1-1") || name.startsWith("agg1-")));
        vectors.put("fattree16-mixed", scenario("fat tree k=16, LEAF, RACK and BLOCK sections", k16, k16,
                k16.hostIndex("h1-1-1"), hosts(k16, mixed.toArray(new String[0])), 0x00ab));
        vectors.put("fattree4-reliable6", scenario("fat tree k=4, a RoCEv2 copy (IPv6) to the virtual peer, rewritten"
                + " at each receiver's leaf but the plain receiver's", k4, k4, source, hosts(k4, RELIABLE), 0x0077,
                RoceCopies.edge(k4, false, RELIABLE)));
        vectors.put("fattree4-reliable4", scenario("fat tree k=4, a RoCEv2 copy (IPv4) to the virtual peer, rewritten"
                + " at each receiver's leaf but the plain receiver's", k4, k4, source, hosts(k4, RELIABLE), 0x0078,
                RoceCopies.edge(k4, true, RELIABLE)));
        int[] members = hosts(k4, SUBSET_GROUP);
        vectors.put("fattree4-subset", subset("fat tree k=4, a UD SEND to a subset address (rank list 0, 2, 5, 7 of"
                + " 8 members) expanded by the source leaf; then addresses it drops", k4, source, members,
                SubsetCopies.listAddress(SubsetCopies.GROUP, 0, 2, 5, 7), new Object[][]{
                    {SubsetCopies.listAddress(SubsetCopies.GROUP, 1, 8), "rank 8 of 8 members", 2},
                    {SubsetCopies.listAddress(SubsetCopies.GROUP, 3, 1), "ranks out of order", 2},
                    {SubsetCopies.listAddress(SubsetCopies.GROUP, 0xFFF, 2), "an unused entry before a used one",
                        2},
                    {SubsetCopies.listAddress(SubsetCopies.GROUP), "no rank", 2},
                    {SubsetCopies.bitmapAddress(SubsetCopies.GROUP, 1, 10), "bitmap rank 10 of 8 members", 2},
                    {SubsetCopies.listAddress(SubsetCopies.GROUP + 1, 1, 2), "a group without an entry", 1},
                    {SubsetCopies.listAddress(SubsetCopies.GROUP, 1, 2), "another host of the leaf: no entry for its"
                        + " port", 1, k4.hostPort(k4.hostIndex("h1-1-2"))}}));
        vectors.put("fattree4-stamp", stamp("fat tree k=4, a plain RoCEv2 packet to a group's address stamped at the"
                + " source leaf with the group's one header; then packets it drops", k4, source,
                hosts(k4, SUBSET_GROUP), org.mcast4ai.impl.p4.P4StampPlanner.MAX_BYTES));
        vectors.put("fattree4-stamp-packets", stamp("fat tree k=4, a group whose headers are bounded to 10 bytes:"
                + " one send becomes one packet per header at the source leaf, each receiver once", k4, source,
                hosts(k4, SUBSET_GROUP), 10));
        vectors.put("fattree4-sender", sender(k4));
        FabricSnapshot ls64 = FabricGenerators.leafSpine(2, 8, 8);
        int[] all = IntStream.range(1, 64).toArray();
        vectors.put("leafspine64-subset", subset("leaf-spine of 8 leaves of 8 hosts, a rank bitmap of 62 of the 63"
                + " members (two HOST sections); 63 ranks are more than two sections hold", ls64, 0, all,
                SubsetCopies.bitmapAddress(SubsetCopies.GROUP, IntStream.range(1, 63).toArray()),
                new Object[][]{
                    {SubsetCopies.bitmapAddress(SubsetCopies.GROUP, IntStream.range(0, 63).toArray()),
                        "63 ranks", 3}}));
        // the wide build (leaf numbers up to 2,047, 32 uplinks): whole racks at random over a k=48 and a k=64 fat
        // tree in one header, and a receiver leaf numbered far beyond 256 on a 1,024-leaf leaf-spine; the switches
        // of the source's pod, a core, and the pod and leaf of the highest-numbered receiver leaf
        vectors.put("fattree48-racks", wide("fat tree k=48, 1,024 receivers in whole racks drawn at random (one"
                + " header, RACK and POD entries)", FabricGenerators.fatTree(48), 1024, 0x4801, true));
        vectors.put("fattree64-racks", wide("fat tree k=64, 2,048 receivers in whole racks drawn at random (one"
                + " header, 32 uplinks)", FabricGenerators.fatTree(64), 2048, 0x6402, true));
        // the program's second RACK and second POD sections: one whole rack in each of 40 pods of k=48 (40 RACK
        // entries: 31 and 9), then two whole racks in each of 40 pods (40 POD entries)
        FabricSnapshot k48 = FabricGenerators.fatTree(48);
        vectors.put("fattree48-rack-sections", sections("fat tree k=48, one whole rack in each of pods 9 to 48: two"
                + " RACK sections", k48, 1, HeaderV2.Kind.RACK, 0x4803));
        vectors.put("fattree48-pod-sections", sections("fat tree k=48, two whole racks in each of pods 9 to 48: two"
                + " POD sections", k48, 2, HeaderV2.Kind.POD, 0x4804));
        vectors.put("leafspine1024-random", wide("leaf-spine of 4 spines and 1,024 leaves of 32 hosts, 6 receivers"
                + " at random: the source's leaf and the highest-numbered receiver leaf", FabricGenerators.leafSpine(4,
                1024, 32), 6, 0x1024, false));
        vectors.put("fattree4-malformed", malformed(k4));
        vectors.put("fattree4-controller", controller(k4));
        boolean write = Boolean.getBoolean("mcast4ai.vectors.write");
        if (write) {
            Files.createDirectories(DIR);
        }
        for (Map.Entry<String, String> v : vectors.entrySet()) {
            Path file = DIR.resolve(v.getKey() + ".json");
            if (write) {
                Files.writeString(file, v.getValue(), StandardCharsets.UTF_8);
            }
            assertTrue(Files.exists(file), file + " missing: run with -Dmcast4ai.vectors.write=true");
            assertEquals(Files.readString(file, StandardCharsets.UTF_8), v.getValue(),
                    file + " differs from the per-hop rule");
        }
    }

    /**
     * A stock NIC's UD SEND to a subset address: the source leaf expands it with the group's entry into HOST
     * sections, so the copies are those of the expanded header, carrying the packet to the group's address with
     * its ICRC computed afresh. Then frames the source leaf must drop, each with the index of the {@code subsets}
     * counter it counts in.
     */
    private static String subset(String what, FabricSnapshot f, int source, int[] members, byte[] address,
                                 Object[][] drops) {
        BitIndexTable bits = BitIndexTable.forFabric(f);
        int[] hostBits = bits.hostBits(f);
        SubsetExpansion e = new SubsetExpansion(Arrays.stream(members).map(h -> hostBits[h]).sorted().toArray());
        SubsetExpansion.Result res = e.expand(address, SubsetCopies.SOURCE_PORT);
        Set<Integer> named = new HashSet<>();
        Arrays.stream(res.header().receivers(bits.geometry())).forEach(named::add);
        int[] chosen = Arrays.stream(members).filter(h -> named.contains(hostBits[h])).toArray();
        int leaf = f.hostSwitch(source);
        long port = f.hostPort(source);
        List<String> dropped = new ArrayList<>();
        for (Object[] d : drops) {
            byte[] a = (byte[]) d[0];
            int counter = (Integer) d[2];
            long in = d.length > 3 ? (Long) d[3] : port;
            SubsetExpansion.Result refused = e.expand(a, SubsetCopies.SOURCE_PORT);
            if (counter != 1 && (refused.refusal() == null || refused.refusal().ordinal() + 2 != counter)) {
                throw new IllegalStateException(d[1] + ": the expansion says " + refused.refusal());
            }
            dropped.add("    {\"switch\": \"" + f.switchName(leaf) + "\", \"role\": \"LEAF\", \"in_port\": " + in
                    + ", \"why\": \"" + d[1] + "\", \"counter\": [\"McastIngress.subsets\", " + counter
                    + "],\n      \"frame\": \"" + hex(frame(null, SubsetCopies.send(a), false))
                    + "\",\n      \"out\": [], \"dropped\": 0}");
        }
        byte[] sent = SubsetCopies.send(address);
        Hosts hosts = new Hosts((sw, p, fr) -> fr, sw -> sw == leaf ? SubsetCopies.json(e, port) : "",
                frame(null, sent, false), dropped);
        return render(what, f, f, bits, source, chosen, List.of(res.header()), SubsetCopies.expanded(sent), false,
                hosts, name -> true);
    }

    /**
     * A group's stamp: the sender sends a plain IPv4 packet to the group's address, its leaf writes the group's
     * headers (as {@link org.mcast4ai.impl.p4.P4StampPlanner} plans and encodes them, each at most maxBytes) and
     * replicates each like a sender-written header, with the flow's entropy. Then packets the leaf drops and
     * counts: another address from the sender's port, the group's address from another host's port.
     */
    private static String stamp(String what, FabricSnapshot f, int source, int[] group, int maxBytes) {
        BitIndexTable bits = BitIndexTable.forFabric(f);
        int[] hostBits = bits.hostBits(f);
        int[] receiverBits = Arrays.stream(group).map(h -> hostBits[h]).sorted().toArray();
        List<byte[]> stamped = org.mcast4ai.impl.p4.P4StampPlanner.headers(bits.geometry(), receiverBits, maxBytes);
        if (maxBytes < org.mcast4ai.impl.p4.P4StampPlanner.MAX_BYTES && stamped.size() < 3) {
            throw new IllegalStateException(what + ": " + stamped.size() + " headers");
        }
        List<HeaderV2> sets = StampCopies.sent(new HeaderV2Codec(bits.geometry()), stamped);
        int leaf = f.hostSwitch(source);
        long port = f.hostPort(source);
        byte[] inner = StampCopies.inner(StampCopies.ADDRESS);
        List<String> dropped = new ArrayList<>();
        Object[][] drops = {
            {StampCopies.inner(new byte[]{(byte) 232, 0, 77, 43}), "another address: no stamp entry", port},
            {inner, "the group's address from another host's port", f.hostPort(f.hostIndex("h1-1-2"))}};
        for (Object[] d : drops) {
            dropped.add("    {\"switch\": \"" + f.switchName(leaf) + "\", \"role\": \"LEAF\", \"in_port\": " + d[2]
                    + ", \"why\": \"" + d[1] + "\", \"counter\": [\"McastIngress.stamps\", 1],\n      \"frame\": \""
                    + hex(frame(null, (byte[]) d[0], true)) + "\",\n      \"out\": [], \"dropped\": 0}");
        }
        Hosts hosts = new Hosts((sw, p, fr) -> fr, sw -> sw == leaf ? StampCopies.json(port, stamped) : "",
                frame(null, inner, true), dropped);
        return render(what, f, f, bits, source, group, sets, inner, true, hosts, name -> true);
    }

    /**
     * Headers a sender writes itself, checked at its leaf against its entry for the group: the group's header is
     * replicated; the same header from another host's port, one for another group's address, one widened to a
     * leaf the group has no receiver on and one naming a slot of the sender's leaf that is not the group's are
     * dropped and counted.
     */
    private static String sender(FabricSnapshot f) {
        BitIndexTable bits = BitIndexTable.forFabric(f);
        int[] hostBits = bits.hostBits(f);
        FabricGeometry g = bits.geometry();
        HeaderV2Codec codec = new HeaderV2Codec(g);
        int source = f.hostIndex("h1-1-1");
        int[] group = hosts(f, "h1-2-1", "h2-1-1", "h3-2-2");
        int entropy = 0x0055;
        List<HeaderV2> sets = new HeaderV2Planner(g).planHosts(hostBits, group, entropy);
        byte[] inner = inner(entropy);
        byte[] foreign = inner.clone();
        foreign[39] ^= 0x01;
        int leaf = f.hostSwitch(source);
        long port = f.hostPort(source);
        Object[][] drops = {
            {codec.encode(sets.get(0)), inner, f.hostPort(f.hostIndex("h1-1-2")), "the group's header from another "
                + "host's port: no entry", 1},
            {codec.encode(sets.get(0)), foreign, port, "the header for another group's address: no entry", 1},
            {widened(g, codec, hostBits, group, f.hostIndex("h4-1-1"), entropy), inner, port, "widened to a leaf "
                + "the group has no receiver on", 2},
            {widened(g, codec, hostBits, group, f.hostIndex("h1-1-2"), entropy), inner, port, "widened to a slot of "
                + "the sender's leaf that is not the group's", 2}};
        List<String> dropped = new ArrayList<>();
        for (Object[] d : drops) {
            dropped.add("    {\"switch\": \"" + f.switchName(leaf) + "\", \"role\": \"LEAF\", \"in_port\": " + d[2]
                    + ", \"why\": \"" + d[3] + "\", \"counter\": [\"McastIngress.senders\", " + d[4]
                    + "],\n      \"frame\": \"" + hex(frame((byte[]) d[0], (byte[]) d[1])) + "\",\n      \"out\": [],"
                    + " \"dropped\": 0}");
        }
        return render("fat tree k=4, headers the sender writes itself: the group's is replicated; from another "
                + "host's port, for another group and widened (another leaf, another slot of its own leaf) they "
                + "reach nobody", f, f, bits, source, group, sets, inner, false,
                new Hosts((sw, p, fr) -> fr, sw -> "", null, dropped), name -> true);
    }

    private static byte[] widened(FabricGeometry g, HeaderV2Codec codec, int[] hostBits, int[] group, int extra,
                                  int entropy) {
        int[] more = Arrays.copyOf(group, group.length + 1);
        more[group.length] = extra;
        List<HeaderV2> h = new HeaderV2Planner(g).planHosts(hostBits, more, entropy);
        if (h.size() != 1) {
            throw new IllegalStateException(h.size() + " headers");
        }
        return codec.encode(h.get(0));
    }

    /**
     * A group on a fabric the default build cannot serve; the packets of the switches of the source's pod (its
     * leaf and the uplink it takes), the cores, and the pod and leaf of the highest-numbered receiver leaf.
     */
    private static String wide(String what, FabricSnapshot f, int n, int entropy, boolean racks) {
        Random rnd = new Random(entropy);
        int source = f.hostIndex(f.switchIndex("leaf1") < 0 ? "h1-1-1" : "h1-1");
        int[] group = racks ? Groups.randomRacks(f, n, source, rnd) : Groups.random(f, n, source, rnd);
        BitIndexTable bits = BitIndexTable.forFabric(f);
        int[] hostBits = bits.hostBits(f);
        int far = Arrays.stream(group).boxed().max(java.util.Comparator.comparingInt(h -> hostBits[h])).orElseThrow();
        String farLeaf = f.switchName(f.hostSwitch(far));
        String sourceLeaf = f.switchName(f.hostSwitch(source));
        String farPod = farLeaf.startsWith("edge") ? "agg" + farLeaf.substring(4, farLeaf.indexOf('-')) + "-" : null;
        List<HeaderV2> sets = new HeaderV2Planner(bits.geometry()).planHosts(hostBits, group, entropy);
        return render(what, f, f, bits, source, group, sets, inner(entropy), false, Hosts.PLAIN,
                name -> name.equals(sourceLeaf) || name.equals(farLeaf) || name.startsWith("agg1-")
                        || name.startsWith("core") || farPod != null && name.startsWith(farPod));
    }

    /**
     * Whole racks (the first {@code racks} leaves) of each of pods 9 to 48 of a k=48 fat tree, in one header
     * with two sections of the given kind; the packets of the switches of the source's pod, the cores, and
     * pod 48.
     */
    private static String sections(String what, FabricSnapshot f, int racks, HeaderV2.Kind kind, int entropy) {
        List<String> names = new ArrayList<>();
        for (int pod = 9; pod <= 48; pod++) {
            for (int leaf = 1; leaf <= racks; leaf++) {
                for (int h = 1; h <= 24; h++) {
                    names.add("h" + pod + "-" + leaf + "-" + h);
                }
            }
        }
        int source = f.hostIndex("h1-1-1");
        int[] group = hosts(f, names.toArray(new String[0]));
        BitIndexTable bits = BitIndexTable.forFabric(f);
        List<HeaderV2> sets = new HeaderV2Planner(bits.geometry()).planHosts(bits.hostBits(f), group, entropy);
        long sectionsOfKind = sets.get(0).sections().stream().filter(x -> x.kind() == kind).count();
        if (sets.size() != 1 || sectionsOfKind != 2) {
            throw new IllegalStateException(what + ": " + sets);
        }
        return render(what, f, f, bits, source, group, sets, inner(entropy), false, Hosts.PLAIN,
                name -> name.equals("edge1-1") || name.startsWith("agg1-") || name.startsWith("core")
                        || name.startsWith("agg48-") || name.equals("edge48-1"));
    }

    private static int[] hosts(FabricSnapshot f, String... names) {
        return Arrays.stream(names).mapToInt(f::hostIndex).sorted().toArray();
    }

    private static String scenario(String what, FabricSnapshot whole, FabricSnapshot f, int source, int[] group,
                                   int entropy) {
        return scenario(what, whole, f, source, group, entropy, null);
    }

    private static String scenario(String what, FabricSnapshot whole, FabricSnapshot f, int source, int[] group,
                                   int entropy, RoceCopies.Edge edge) {
        BitIndexTable bits = BitIndexTable.forFabric(whole);
        List<HeaderV2> sets = new HeaderV2Planner(bits.geometry()).planHosts(bits.hostBits(whole), group, entropy);
        boolean ipv4 = edge != null && edge.ipv4();
        if (ipv4) {
            List<HeaderV2> v4 = new ArrayList<>();
            sets.forEach(h -> v4.add(new HeaderV2(h.hopLimit(), h.entropy(), true, h.sections())));
            sets = v4;
        }
        Hosts hosts = edge == null ? Hosts.PLAIN : new Hosts(edge::atPort, edge::json, null, List.of());
        return render(what, whole, f, bits, source, group, sets, edge == null ? inner(entropy) : edge.inner(), ipv4,
                hosts, name -> true);
    }

    /** What the fabric's edge does beyond the header: rewrites towards hosts, state, the source's own frame. */
    private static final class Hosts {
        static final Hosts PLAIN = new Hosts((sw, port, frame) -> frame, sw -> "", null, List.of());
        final AtPort atPort;
        final IntFunction<String> json;
        final byte[] sourceFrame;
        final List<String> sourceDrops;

        /**
         * @param atPort      a copy towards a host as it leaves its port
         * @param json        a switch's state beyond its tables (a JSON member with a leading comma, or nothing)
         * @param sourceFrame the frame the source sends, when it is not the header and the packet
         * @param sourceDrops packet records of frames the source's switch must drop
         */
        Hosts(AtPort atPort, IntFunction<String> json, byte[] sourceFrame, List<String> sourceDrops) {
            this.atPort = atPort;
            this.json = json;
            this.sourceFrame = sourceFrame;
            this.sourceDrops = sourceDrops;
        }
    }

    private interface AtPort {
        byte[] at(int sw, long port, byte[] frame);
    }

    private static String render(String what, FabricSnapshot whole, FabricSnapshot f, BitIndexTable bits, int source,
                                 int[] group, List<HeaderV2> sets, byte[] inner, boolean ipv4, Hosts hosts,
                                 java.util.function.Predicate<String> keep) {
        SwitchTables tables = SwitchTables.build(f, bits);
        ReplicationSimulator sim = new ReplicationSimulator(f, tables);
        List<String> packets = new ArrayList<>();
        TreeSet<Integer> touched = new TreeSet<>();
        int sourceSwitch = f.hostSwitch(source);
        long sourcePort = f.hostPort(source);
        int[] merged = {-1};
        StringBuilder sourceOuts = new StringBuilder();
        int[] sourceDropped = {0};
        ReplicationSimulator.Replication r = sim.simulate(source, sets, inner.length, (sw, inPort, in, ports, out,
                                                                                         dropped) -> {
            if (!keep.test(f.switchName(sw))) {
                return;
            }
            touched.add(sw);
            StringBuilder outs = new StringBuilder();
            for (int i = 0; i < ports.size(); i++) {
                byte[] copy = frame(out.get(i), inner, ipv4);
                outs.append(i == 0 ? "" : ",\n").append("        {\"port\": ").append(ports.get(i))
                        .append(", \"frame\": \"")
                        .append(hex(out.get(i) == null ? hosts.atPort.at(sw, ports.get(i), copy) : copy))
                        .append("\"}");
            }
            boolean fromSource = hosts.sourceFrame != null && sw == sourceSwitch && inPort == sourcePort;
            byte[] frameIn = fromSource ? hosts.sourceFrame : frame(in, inner, ipv4);
            if (fromSource && merged[0] >= 0) {
                // one frame from the sender, one header packet after another at its leaf: one record, every copy
                if (outs.length() > 0) {
                    sourceOuts.append(sourceOuts.length() == 0 ? "" : ",\n").append(outs);
                }
                sourceDropped[0] += dropped;
                return;
            }
            if (fromSource) {
                merged[0] = packets.size();
                sourceOuts.append(outs);
                sourceDropped[0] += dropped;
            }
            packets.add("    {\"switch\": \"" + f.switchName(sw) + "\", \"role\": \"" + f.role(sw)
                    + "\", \"in_port\": " + inPort + ",\n      \"frame\": \"" + hex(frameIn)
                    + "\",\n      \"out\": [" + (outs.length() == 0 ? "" : "\n" + outs + "\n      ")
                    + "], \"dropped\": " + dropped + "}");
        });
        if (merged[0] >= 0) {
            packets.set(merged[0], "    {\"switch\": \"" + f.switchName(sourceSwitch) + "\", \"role\": \""
                    + f.role(sourceSwitch) + "\", \"in_port\": " + sourcePort + ",\n      \"frame\": \""
                    + hex(hosts.sourceFrame) + "\",\n      \"out\": [" + (sourceOuts.length() == 0 ? ""
                    : "\n" + sourceOuts + "\n      ") + "], \"dropped\": " + sourceDropped[0] + "}");
        }
        if (r.hostCopies() != group.length) {
            throw new IllegalStateException("scenario delivers " + r.hostCopies() + " of " + group.length);
        }
        packets.addAll(hosts.sourceDrops);
        StringBuilder receivers = new StringBuilder();
        for (int h : group) {
            receivers.append(receivers.length() == 0 ? "" : ", ").append('"').append(whole.hostName(h)).append('"');
        }
        return "{\n  \"description\": \"" + what + "\",\n  \"geometry\": " + geometry(bits.geometry())
                + ",\n  \"source\": \"" + whole.hostName(source) + "\",\n  \"receivers\": [" + receivers
                + "],\n  \"switches\": {\n" + switches(f, tables, touched,
                sw -> hosts.json.apply(sw) + (sw == sourceSwitch ? senderJson(bits, f, source, group, inner, ipv4)
                        : "")) + "\n  },\n  \"packets\": [\n"
                + String.join(",\n", packets) + "\n  ]\n}\n";
    }

    /**
     * The source leaf's sender entry for the group (as {@link org.mcast4ai.impl.p4.P4StampPlanner#senderRule}
     * writes it): the sender's own headers may name the group's leaves and, of its own leaf, the group's slots.
     */
    static String senderJson(BitIndexTable bits, FabricSnapshot f, int source, int[] group, byte[] inner,
                             boolean ipv4) {
        int[] hostBits = bits.hostBits(f);
        int[] receiverBits = Arrays.stream(group).map(h -> hostBits[h]).sorted().toArray();
        org.mcast4ai.impl.p4.P4StampPlanner.Allowance a = org.mcast4ai.impl.p4.P4StampPlanner.allowance(
                bits.geometry(), receiverBits, hostBits[source]);
        byte[] key = new byte[16];
        if (ipv4) {
            key[10] = (byte) 0xff;
            key[11] = (byte) 0xff;
            System.arraycopy(inner, 16, key, 12, 4);
        } else {
            System.arraycopy(inner, 24, key, 0, 16);
        }
        StringBuilder leaves = new StringBuilder();
        a.leaves().stream().forEach(l -> leaves.append(leaves.length() == 0 ? "" : ", ").append(l));
        return ",\n      \"senders\": [{\"port\": " + f.hostPort(source) + ", \"dst\": \"" + hex(key)
                + "\", \"leaves\": [" + leaves + "], \"own\": \"" + String.format("%016x", a.own()) + "\"}]";
    }

    /**
     * Frames a switch must drop: a version 1 header, a hop limit of 0, a frame that ends inside a section (the
     * truncated header with nothing after it: followed by a payload, a short section would take the payload's
     * first bytes as entries, which no parser can tell from a header naming other receivers).
     */
    private static String malformed(FabricSnapshot f) {
        BitIndexTable bits = BitIndexTable.forFabric(f);
        SwitchTables tables = SwitchTables.build(f, bits);
        FabricGeometry g = bits.geometry();
        int leaf = f.switchIndex("edge1-1");
        byte[] inner = inner(0);
        HeaderV2Codec codec = new HeaderV2Codec(g);
        byte[] good = codec.encode(new HeaderV2Planner(g).plan(new int[]{g.bit(1, 0, 1), g.bit(2, 1, 0)}, 0).get(0));
        byte[] v1 = good.clone();
        v1[0] = (byte) (0x10 | (v1[0] & 0x0F));
        byte[] expired = good.clone();
        expired[0] = (byte) 0x20;
        byte[] truncated = Arrays.copyOf(good, good.length - 2);
        List<String> packets = new ArrayList<>();
        for (byte[][] c : new byte[][][]{{v1, "version 1".getBytes(StandardCharsets.US_ASCII)},
            {expired, "hop limit 0".getBytes(StandardCharsets.US_ASCII)},
            {truncated, "truncated section".getBytes(StandardCharsets.US_ASCII)}}) {
            int dropped = 0;
            try {
                HeaderV2 h = codec.decode(c[0]);
                SwitchLogic.Result res = SwitchLogic.forward(tables.table(leaf), 1,
                        ReceiverSet.of(h.hopLimit(), h.receivers(g)), h.entropy());
                if (!res.copies().isEmpty()) {
                    throw new IllegalStateException("a malformed frame was forwarded");
                }
                dropped = res.dropped();
            } catch (IllegalArgumentException refused) {
                dropped = 0;
            }
            packets.add("    {\"switch\": \"edge1-1\", \"role\": \"LEAF\", \"in_port\": 1, \"why\": \""
                    + new String(c[1], StandardCharsets.US_ASCII) + "\",\n      \"frame\": \""
                    + hex(frame(c[0], c[0] == truncated ? new byte[0] : inner))
                    + "\",\n      \"out\": [], \"dropped\": " + dropped + "}");
        }
        // what the spec refuses (section 2.2) after the fixed part 28 00 00 00; k=4 is 4 pods x 2 leaves x 2
        // slots (2+1+1 bits): each would draw copies no receiver asked for, or alias onto another leaf
        String[][] refused = {
            {"28 01 00 00 21 00 05 00", "reserved bits set"},
            {"28 00 00 00 41 00 05 00", "a RACK prefix with its slot bit set"},
            {"28 00 00 00 61 00 05 80 00", "a LEAF prefix with its slot bit set"},
            {"28 00 00 00 61 00 04 00 00", "a LEAF entry with an empty slot bitmap"},
            {"28 00 00 00 61 00 04 20 00", "a LEAF bitmap naming slot 2 of 2"},
            {"28 00 00 00 81 01 00 00", "a POD entry with an empty leaf bitmap"},
            {"28 00 00 00 81 01 20 00", "a POD bitmap naming leaf 2 of 2 (pod 2's leaf 0 if aliased)"},
            {"28 00 00 00 21 00 10 00", "a HOST entry in pod 4 of 4"},
            {"28 00 00 00 21 10 00 00", "a HOST entry on leaf 2048, beyond the leaf sets"},
            {"28 00 00 00 A1 00 10 00", "a BLOCK entry in pod 4 of 4"},
        };
        for (String[] c : refused) {
            byte[] h = unhex(c[0].replace(" ", ""));
            try {
                codec.decode(h);
                throw new IllegalStateException("the decoder accepts " + c[1]);
            } catch (IllegalArgumentException expected) {
                // refused by the spec: the switch must drop it and count it
            }
            packets.add("    {\"switch\": \"edge1-1\", \"role\": \"LEAF\", \"in_port\": 1, \"why\": \"" + c[1]
                    + "\", \"counter\": [\"McastIngress.refused\", 0],\n      \"frame\": \"" + hex(frame(h, inner))
                    + "\",\n      \"out\": [], \"dropped\": 0}");
        }
        // a switch whose role entry is not written yet forwards nothing, even a header naming its own slot 0
        byte[] slot0 = unhex("2800000021000000");
        if (codec.decode(slot0).receivers(g)[0] != 0) {
            throw new IllegalStateException("bit index 0 expected");
        }
        packets.add("    {\"switch\": \"edge1-1\", \"role\": \"LEAF\", \"in_port\": 2, \"no_role\": true, \"why\": "
                + "\"bit index 0 before the role is written\", \"counter\": [\"McastIngress.refused\", 1],\n"
                + "      \"frame\": \"" + hex(frame(slot0, inner)) + "\",\n      \"out\": [], \"dropped\": 0}");
        return "{\n  \"description\": \"frames the source leaf of fat tree k=4 must drop: parser errors, what the"
                + " spec refuses (counted), and anything before its role is written (counted)\",\n  \"geometry\": "
                + geometry(g) + ",\n  \"switches\": {\n" + switches(f, tables, new TreeSet<>(List.of(leaf)))
                + "\n  },\n  \"packets\": [\n" + String.join(",\n", packets) + "\n  ]\n}\n";
    }

    /**
     * Controller packets on a leaf: LLDP, BDDP, ARP and ICMPv6 go to the CPU port behind a packet_in header
     * (9-bit ingress port, 7 bits of padding); a frame from the CPU port leaves by its packet_out header's port
     * without it; an IPv6 frame without the header that is not ICMPv6 is dropped.
     */
    private static String controller(FabricSnapshot f) {
        BitIndexTable bits = BitIndexTable.forFabric(f);
        SwitchTables tables = SwitchTables.build(f, bits);
        int leaf = f.switchIndex("edge1-1");
        long up = tables.table(leaf).upPorts()[0];
        byte[] lldp = ethernet("0180c200000e", 0x88CC, "020702000000000001040302000105020078000000000000");
        byte[] bddp = ethernet("ffffffffffff", 0x8942, "020702000000000001040302000305020078000000000000");
        byte[] arp = ethernet("ffffffffffff", 0x0806, "0001080006040001020000000001c0a80001000000000000c0a80002");
        byte[] icmp6 = ethernet("3333ff000002", 0x86DD, "6000000000203aff" + "fd000000000000000000000000000001"
                + "ff0200000000000000000001ff000002" + "8700000000000000fd000000000000000000000000000002"
                + "0101020000000001");
        byte[] udp6 = frame(null, inner(0));
        List<String> packets = new ArrayList<>();
        Object[][] cases = {
            {1L, lldp, CPU_PORT, concat(controllerHeader(1), lldp), "LLDP to the controller"},
            {up, bddp, CPU_PORT, concat(controllerHeader(up), bddp), "BDDP from an uplink to the controller"},
            {2L, arp, CPU_PORT, concat(controllerHeader(2), arp), "ARP to the controller"},
            {1L, icmp6, CPU_PORT, concat(controllerHeader(1), icmp6), "ICMPv6 to the controller"},
            {1L, udp6, null, null, "IPv6 without the header: dropped"},
            {(long) CPU_PORT, concat(controllerHeader(up), lldp), (int) up, lldp, "packet-out by its port"},
        };
        for (Object[] c : cases) {
            String out = c[2] == null ? "" : "\n        {\"port\": " + c[2] + ", \"frame\": \""
                    + hex((byte[]) c[3]) + "\"}\n      ";
            packets.add("    {\"switch\": \"edge1-1\", \"role\": \"LEAF\", \"in_port\": " + c[0]
                    + ", \"why\": \"" + c[4] + "\",\n      \"frame\": \"" + hex((byte[]) c[1])
                    + "\",\n      \"out\": [" + out + "], \"dropped\": 0}");
        }
        return "{\n  \"description\": \"controller packets on a leaf of fat tree k=4 (CPU port " + CPU_PORT
                + ")\",\n  \"geometry\": " + geometry(bits.geometry()) + ",\n  \"switches\": {\n"
                + switches(f, tables, new TreeSet<>(List.of(leaf))) + "\n  },\n  \"packets\": [\n"
                + String.join(",\n", packets) + "\n  ]\n}\n";
    }

    private static byte[] controllerHeader(long port) {
        return new byte[]{(byte) (port >>> 1), (byte) ((port & 1) << 7)};
    }

    private static byte[] ethernet(String dst, int type, String payload) {
        byte[] p = unhex(payload);
        byte[] out = new byte[Math.max(60, 14 + p.length)];
        System.arraycopy(unhex(dst), 0, out, 0, 6);
        System.arraycopy(SENDER_MAC, 0, out, 6, 6);
        out[12] = (byte) (type >>> 8);
        out[13] = (byte) type;
        System.arraycopy(p, 0, out, 14, p.length);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    private static String geometry(FabricGeometry g) {
        return "{\"three_tier\": " + g.threeTier() + ", \"pods\": " + g.pods() + ", \"leaves_per_pod\": "
                + g.leavesPerPod() + ", \"slots_per_leaf\": " + g.slotsPerLeaf() + ", \"leaf_bits\": " + g.leafBits()
                + ", \"slot_bits\": " + g.slotBits() + "}";
    }

    private static String switches(FabricSnapshot f, SwitchTables tables, TreeSet<Integer> which) {
        return switches(f, tables, which, Hosts.PLAIN.json);
    }

    private static String switches(FabricSnapshot f, SwitchTables tables, TreeSet<Integer> which,
                                   IntFunction<String> extra) {
        List<String> out = new ArrayList<>();
        for (int sw : which) {
            SwitchTable t = tables.table(sw);
            StringBuilder children = new StringBuilder();
            for (int c = 0; c < t.children(); c++) {
                long[] ports = t.childPorts(c);
                StringBuilder reach = new StringBuilder();
                for (int p = 0; p < ports.length; p++) {
                    reach.append(p == 0 ? "" : ", ").append(Arrays.toString(t.childReach(c, p)));
                }
                children.append(c == 0 ? "" : ", ").append("{\"lo\": ").append(t.childLo(c)).append(", \"hi\": ")
                        .append(t.childHi(c)).append(", \"ports\": ").append(Arrays.toString(ports))
                        .append(", \"reach\": [").append(reach).append("]}");
            }
            StringBuilder up = new StringBuilder();
            long[] ups = t.upPorts();
            for (int p = 0; p < ups.length; p++) {
                up.append(p == 0 ? "" : ", ").append("{\"port\": ").append(ups[p]).append(", \"reach\": ")
                        .append(Arrays.toString(t.upReach(p))).append('}');
            }
            out.add("    \"" + f.switchName(sw) + "\": {\"role\": \"" + f.role(sw) + "\", \"self_lo\": " + t.selfLo()
                    + ", \"self_hi\": " + t.selfHi() + ", \"to_hosts\": " + t.toHosts()
                    + ",\n      \"children\": [" + children + "],\n      \"up\": [" + up + "]"
                    + extra.apply(sw) + "}");
        }
        return String.join(",\n", out);
    }

    private static byte[] frame(byte[] header, byte[] inner) {
        return frame(header, inner, false);
    }

    /** Ethernet, then the header (or, towards a host, nothing: the EtherType becomes IPv6), then the packet. */
    private static byte[] frame(byte[] header, byte[] inner, boolean ipv4) {
        int type = header == null ? ipv4 ? 0x0800 : 0x86DD : ETHERTYPE_MCAST4AI;
        byte[] out = new byte[14 + (header == null ? 0 : header.length) + inner.length];
        System.arraycopy(GROUP_MAC, 0, out, 0, 6);
        System.arraycopy(SENDER_MAC, 0, out, 6, 6);
        out[12] = (byte) (type >>> 8);
        out[13] = (byte) type;
        int at = 14;
        if (header != null) {
            System.arraycopy(header, 0, out, at, header.length);
            at += header.length;
        }
        System.arraycopy(inner, 0, out, at, inner.length);
        return out;
    }

    /** IPv6 (fd00::1 to ff3e::4d:2a) and UDP to 4791 with a 16-byte payload and a valid checksum. */
    private static byte[] inner(int entropy) {
        byte[] payload = "mcast4ai vector ".getBytes(StandardCharsets.US_ASCII);
        byte[] p = new byte[40 + 8 + payload.length];
        int udpLen = 8 + payload.length;
        p[0] = 0x60;
        p[4] = (byte) (udpLen >>> 8);
        p[5] = (byte) udpLen;
        p[6] = 17;
        p[7] = 64;
        p[8] = (byte) 0xfd;
        p[23] = 1;
        p[24] = (byte) 0xff;
        p[25] = 0x3e;
        p[36] = 0x00;
        p[37] = 0x4d;
        p[38] = 0x00;
        p[39] = 0x2a;
        int srcPort = 0xC000 | (entropy & 0x3FFF);
        p[40] = (byte) (srcPort >>> 8);
        p[41] = (byte) srcPort;
        p[42] = (byte) (4791 >>> 8);
        p[43] = (byte) 4791;
        p[44] = (byte) (udpLen >>> 8);
        p[45] = (byte) udpLen;
        System.arraycopy(payload, 0, p, 48, payload.length);
        long sum = 0;
        for (int i = 8; i < 40; i += 2) {
            sum += ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
        }
        sum += udpLen + 17;
        for (int i = 40; i < p.length; i += 2) {
            sum += ((p[i] & 0xFF) << 8) | (i + 1 < p.length ? p[i + 1] & 0xFF : 0);
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int check = (int) (~sum & 0xFFFF);
        p[46] = (byte) (check >>> 8);
        p[47] = (byte) check;
        return p;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(2 * b.length);
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xFF));
        }
        return s.toString();
    }
}
