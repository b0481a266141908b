package org.mcast4ai.bench;

import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.FabricTreeComputer;
import org.mcast4ai.engine.MulticastTree;
import org.mcast4ai.engine.Role;
import org.mcast4ai.engine.TreeComputer;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.FabricGeometry;
import org.mcast4ai.engine.bitmap.HeaderV2;
import org.mcast4ai.engine.bitmap.HeaderV2Planner;
import org.mcast4ai.engine.bitmap.ReplicationSimulator;
import org.mcast4ai.engine.bitmap.SwitchTables;

import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The engine benchmark: one row per scenario (fat trees k=16..64, groups of 8..4,096 receivers, rack-packed
 * and random) with the engine's compile time (tree + header, median, one thread), links used against the
 * optimum, the version 2 header within the P4 program's sections (bytes, packets) and without them (the spec),
 * per-switch entries, delivered bytes against the ideal tree, and the same figures for unicast, Trellis and flat
 * BIER computed in the same run. Writes a Markdown table, a CSV and a
 * PNG plot of link bytes against receiver count.
 *
 * <p>Usage: {@code EngineBench [--quick] [--out DIR] [--k 16,32,48,64]}; results go to
 * {@code tools/bench/target/engine} unless {@code --out} names another folder ({@code --out docs/bench} for the
 * published figures).
 */
public final class EngineBench {
    private static final int PAYLOAD = 4096;
    private static final int BIER_BSL = 256;
    private static final int[] SIZES = {8, 64, 1024, 4096};

    private final boolean quick;
    private final long budgetNs;
    private final List<Row> rows = new ArrayList<>();

    private EngineBench(boolean quick) {
        this.quick = quick;
        this.budgetNs = quick ? 60_000_000L : 500_000_000L;
    }

    /**
     * @param args command line
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws IOException {
        boolean quick = false;
        // results go under target/ unless asked (--out docs/bench writes the published figures): a run leaves the
        // checkout clean
        File out = new File("tools/bench/target/engine");
        int[] ks = {16, 32, 48, 64};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick":
                    quick = true;
                    break;
                case "--out":
                    out = new File(args[++i]);
                    break;
                case "--k":
                    ks = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                default:
                    System.err.println("usage: engine [--quick] [--out DIR] [--k 16,32,48,64]");
                    System.exit(2);
            }
        }
        new EngineBench(quick).run(ks, out);
    }

    private void run(int[] ks, File out) throws IOException {
        long start = System.nanoTime();
        warmUp();
        System.out.println(Row.header());
        for (int k : ks) {
            Fabric fab = new Fabric(k);
            for (int n : SIZES) {
                if (n >= fab.snapshot.hostCount() - fab.hostsPerLeaf) {
                    continue;
                }
                for (Scenario s : new Scenario[]{Scenario.rackPacked(k, fab.snapshot, n),
                    Scenario.spreadRacks(k, fab.snapshot, n, 17L * k + n), Scenario.random(k, fab.snapshot, n,
                        31L * k + n)}) {
                    Row row = measure(fab, s);
                    rows.add(row);
                    System.out.println(row.line());
                }
            }
        }
        System.out.println();
        printTargets();
        System.out.printf(Locale.ROOT, "%nbench: %d scenarios in %.1f s (%s), sink %d%n", rows.size(),
                (System.nanoTime() - start) / 1e9, quick ? "quick" : "full", Median.sink() & 1);
        if (!out.isDirectory() && !out.mkdirs()) {
            throw new IOException("cannot create " + out);
        }
        writeMarkdown(new File(out, quick ? "engine-results-quick.md" : "engine-results.md"));
        writePlot(new File(out, "link-bytes.png"));
        System.out.println("bench: wrote " + out + "/" + (quick ? "engine-results-quick.md" : "engine-results.md")
                + " and " + out + "/link-bytes.png");
    }

    /** Runs every code path on a small fabric first so the measured scenarios see compiled code. */
    private void warmUp() {
        Fabric fab = new Fabric(16);
        long end = System.nanoTime() + (quick ? 3_000_000_000L : 10_000_000_000L);
        for (int i = 0; System.nanoTime() < end; i++) {
            Scenario s = Scenario.random(16, fab.snapshot, 8 << (i % 7), i);
            Median.consume(fab.trees.compute(fab.snapshot, s.source, s.receivers, i).size()
                    + fab.p4.planHosts(fab.hostBits, s.receivers, i).size()
                    + fab.baselines.unicast(s.source, s.receivers).linkCopies);
        }
        for (int round = 0; round < 3; round++) {
            for (int n : new int[]{8, 64, 512}) {
                measure(fab, Scenario.random(16, fab.snapshot, n, round));
                measure(fab, Scenario.rackPacked(16, fab.snapshot, n));
            }
        }
    }

    /** A fabric with everything derived from it once (topology state, not per-group work). */
    private static final class Fabric {
        final FabricSnapshot snapshot;
        final BitIndexTable bits;
        final int[] hostBits;
        final HeaderV2Planner v2;
        final HeaderV2Planner p4;
        final SwitchTables tables;
        final ReplicationSimulator sim;
        final Baselines baselines;
        final TreeComputer trees = new FabricTreeComputer();
        final int hostsPerLeaf;

        Fabric(int k) {
            snapshot = FabricGenerators.fatTree(k);
            bits = BitIndexTable.forFabric(snapshot);
            hostBits = bits.hostBits(snapshot);
            // the version 2 header within the sections the P4 program parses (what a group is sent with), and
            // the header spec's encoding without those bounds
            v2 = new HeaderV2Planner(bits.geometry(), HeaderV2Planner.DEFAULT_MAX_BYTES, HeaderV2Planner.Limits.NONE);
            p4 = new HeaderV2Planner(bits.geometry(), HeaderV2Planner.DEFAULT_MAX_BYTES, HeaderV2Planner.Limits.P4);
            tables = SwitchTables.build(snapshot, bits);
            sim = new ReplicationSimulator(snapshot, tables);
            baselines = new Baselines(snapshot);
            hostsPerLeaf = k / 2;
        }

        /** Fewest links: one into each other receiver leaf and other pod, one up, one to the core. */
        int optimum(int source, int[] receivers) {
            FabricGeometry g = bits.geometry();
            int srcLeaf = snapshot.hostSwitch(source);
            int srcPod = g.podOf(bits.leafPrefix(snapshot.switchName(srcLeaf)));
            Set<Integer> leaves = new HashSet<>();
            Set<Integer> pods = new HashSet<>();
            for (int r : receivers) {
                int leaf = snapshot.hostSwitch(r);
                if (leaf != srcLeaf) {
                    leaves.add(leaf);
                    int pod = g.podOf(bits.leafPrefix(snapshot.switchName(leaf)));
                    if (pod != srcPod) {
                        pods.add(pod);
                    }
                }
            }
            return leaves.size() + (leaves.isEmpty() ? 0 : 1) + (pods.isEmpty() ? 0 : 1 + pods.size());
        }
    }

    private Row measure(Fabric fab, Scenario s) {
        FabricSnapshot f = fab.snapshot;
        Row row = new Row(s);
        MulticastTree tree = fab.trees.compute(f, s.source, s.receivers, s.source);
        List<HeaderV2> sets = fab.p4.planHosts(fab.hostBits, s.receivers, s.source);
        row.treeLinks = tree.fabricLinks();
        row.treeSwitches = tree.size();
        row.optimum = fab.optimum(s.source, s.receivers);
        row.sets = sets.size();
        for (HeaderV2 h : sets) {
            int size = fab.p4.codec().size(h);
            row.headerBytes += size;
            row.maxHeader = Math.max(row.maxHeader, size);
        }
        int minRuns = quick ? 5 : 20;
        row.treeNs = Median.measure(() -> fab.trees.compute(f, s.source, s.receivers, s.source).size(), minRuns,
                budgetNs).cpuNs;
        row.headerNs = Median.measure(() -> fab.p4.planHosts(fab.hostBits, s.receivers, s.source).size(), minRuns,
                budgetNs).cpuNs;
        Median.Timing both = Median.measure(() -> fab.trees.compute(f, s.source, s.receivers, s.source).size()
                + fab.p4.planHosts(fab.hostBits, s.receivers, s.source).size(), minRuns, budgetNs);
        row.compileNs = both.cpuNs;
        row.compileWallNs = both.wallNs;
        ReplicationSimulator.Replication rep = fab.sim.simulate(s.source, sets, PAYLOAD);
        if (rep.hostCopies() != s.receivers.length || rep.dropped() != 0 || rep.revisits() != 0) {
            throw new IllegalStateException("bitmap delivery wrong in " + row.name());
        }
        row.bitmapLinks = rep.linksUsed();
        row.bitmapBytes = rep.totalBytes();
        row.idealBytes = (long) (row.optimum + s.receivers.length + 1) * PAYLOAD;
        List<HeaderV2> v2 = fab.v2.planHosts(fab.hostBits, s.receivers, s.source);
        row.v2Sets = v2.size();
        for (HeaderV2 h : v2) {
            row.v2Header += fab.v2.codec().size(h);
        }
        row.v2Ns = Median.measure(() -> fab.v2.planHosts(fab.hostBits, s.receivers, s.source).size(), minRuns,
                budgetNs).cpuNs;
        ReplicationSimulator.Replication rep2 = fab.sim.simulate(s.source, v2, PAYLOAD);
        if (rep2.hostCopies() != s.receivers.length || rep2.dropped() != 0 || rep2.revisits() != 0) {
            throw new IllegalStateException("version 2 delivery wrong in " + row.name());
        }
        row.v2Bytes = rep2.totalBytes();
        row.staticLeaf = fab.tables.maxEntries(f, Role.LEAF);
        row.staticSpine = fab.tables.maxEntries(f, Role.SPINE);
        row.staticCore = fab.tables.maxEntries(f, Role.SUPER_SPINE);

        Baselines.Result uni = fab.baselines.unicast(s.source, s.receivers);
        row.unicastNs = Median.measure(() -> fab.baselines.unicast(s.source, s.receivers).linkCopies, minRuns,
                budgetNs).cpuNs;
        row.unicastCopies = uni.linkCopies;
        row.unicastBytes = (2L * s.receivers.length + uni.linkCopies) * PAYLOAD;

        Baselines.Result tr = fab.baselines.trellis(s.source, s.receivers, s.source);
        row.trellisNs = Median.measure(() -> fab.baselines.trellis(s.source, s.receivers, s.source).linksUsed,
                quick ? 2 : 5, budgetNs).cpuNs;
        row.trellisLinks = tr.linksUsed;
        row.trellisSwitches = tr.stateSwitches;

        Baselines.Result bier = fab.baselines.bier(s.source, s.receivers, BIER_BSL);
        row.bierSets = bier.sets;
        row.bierHeader = bier.headerBytes;
        row.bierCopies = bier.linkCopies;
        row.bierBytes = (long) bier.sets * PAYLOAD + bier.linkCopies * (PAYLOAD + bier.headerBytes)
                + (long) s.receivers.length * PAYLOAD;
        return row;
    }

    private void printTargets() {
        System.out.println("targets (median CPU time of tree + header on one thread; wall time in brackets):");
        target(48, 1024, 50);
        target(64, 1024, 100);
        target(64, 4096, 300);
    }

    private void target(int k, int n, double limitUs) {
        for (Row r : rows) {
            if (r.s.k == k && r.s.receiversWanted == n) {
                double us = r.compileNs / 1e3;
                System.out.printf(Locale.ROOT, "  k=%d %d %-6s tree+header %.1f us [wall %.1f] (tree %.1f,"
                                + " header %.1f) target <= %.0f us: %s%n", k, n, r.s.shape(), us,
                        r.compileWallNs / 1e3, r.treeNs / 1e3, r.headerNs / 1e3, limitUs,
                        us <= limitUs ? "met" : "MISSED");
            }
        }
    }

    private void writeMarkdown(File file) throws IOException {
        try (PrintWriter w = new PrintWriter(file, StandardCharsets.UTF_8)) {
            w.println("# Engine benchmark results (" + (quick ? "quick" : "full") + " run)");
            w.println();
            w.println("Generated by `tools/bench/engine" + (quick ? " --quick" : "") + "`; "
                    + Runtime.getRuntime().availableProcessors() + " CPU(s) visible, Java "
                    + System.getProperty("java.version") + ". Times are medians of the thread's CPU time on one "
                    + "thread, in microseconds (the tree+header wall-time median is in its own column). "
                    + "Bytes at a " + PAYLOAD + "-byte payload over every link (source uplink, fabric, host "
                    + "downlinks); bitmap bytes include the header on every hop. The bitmap columns are the version 2 "
                    + "header within the sections the P4 program parses (what a group is sent with); the spec "
                    + "columns the same header without those bounds. For scale: Elmo's published mean header is "
                    + "114 B at 27K hosts (with per-switch entries for what its header leaves out); flat BIER "
                    + "(BSL " + BIER_BSL + ") is computed here on the same groups.");
            w.println();
            w.println(Row.markdownHeader());
            for (Row r : rows) {
                w.println(r.markdown());
            }
        }
    }

    private void writePlot(File file) throws IOException {
        int k = rows.stream().mapToInt(r -> r.s.k).max().orElse(0);
        List<Plot.Series> series = new ArrayList<>();
        Plot.Series mcRandom = new Plot.Series("bitmap multicast, random", new Color(0, 110, 190), false);
        Plot.Series ucRandom = new Plot.Series("unicast, random", new Color(200, 60, 40), false);
        Plot.Series mcRack = new Plot.Series("bitmap multicast, racks", new Color(30, 150, 70), true);
        Plot.Series ucRack = new Plot.Series("unicast, racks", new Color(235, 140, 0), true);
        for (Row r : rows) {
            if (r.s.k != k || r.s.spreadRacks) {
                continue;
            }
            double n = r.s.receivers.length;
            (r.s.rackPacked ? mcRack : mcRandom).points.add(new double[]{n, r.bitmapBytes});
            (r.s.rackPacked ? ucRack : ucRandom).points.add(new double[]{n, r.unicastBytes});
        }
        series.add(ucRandom);
        series.add(ucRack);
        series.add(mcRandom);
        series.add(mcRack);
        Plot.write(file, "Link bytes per 4 KB message, k=" + k + " fat tree", "receivers",
                "bytes on all links", series);
    }

    /** The figures of one scenario. */
    private static final class Row {
        final Scenario s;
        long treeNs;
        long headerNs;
        long compileNs;
        long compileWallNs;
        int treeLinks;
        int treeSwitches;
        int optimum;
        int headerBytes;
        int maxHeader;
        int sets;
        int bitmapLinks;
        long bitmapBytes;
        long idealBytes;
        int staticLeaf;
        int staticSpine;
        int staticCore;
        long unicastNs;
        long unicastCopies;
        long unicastBytes;
        long trellisNs;
        int trellisLinks;
        int trellisSwitches;
        int bierSets;
        int bierHeader;
        long bierCopies;
        long bierBytes;
        long v2Ns;
        int v2Header;
        int v2Sets;
        long v2Bytes;

        Row(Scenario s) {
            this.s = s;
        }

        String name() {
            return "k=" + s.k + " n=" + s.receivers.length + " " + s.shape();
        }

        static String header() {
            return String.format(Locale.ROOT, "%-4s %5s %-6s | %8s %8s %9s %6s %6s %6s %5s %5s %7s %9s | %8s"
                            + " %7s %8s | %9s %6s %7s %8s | %5s %5s %7s %8s | %7s %5s %4s %8s %8s",
                    "k", "n", "shape", "tree_us", "hdr_us", "t+h_us", "links", "opt", "hdr_B", "max_B", "sets",
                    "static", "B/ideal", "uni_us", "uni_cp", "uni/bm", "trel_us", "t_lnk", "t_entr", "trel/bm",
                    "bier#", "bierB", "bier_cp", "bier/bm", "spec_us", "specB", "spec#", "sp/ideal", "bier/sp");
        }

        String line() {
            return String.format(Locale.ROOT, "%-4d %5d %-6s | %8.1f %8.1f %9.1f %6d %6d %6d %5d %5d %7s %9.4f |"
                            + " %8.1f %7d %8.2f | %9.1f %6d %7d %8.1f | %5d %5d %7d %8.3f | %7.1f %5d %4d %8.4f"
                            + " %8.3f",
                    s.k, s.receivers.length, s.shape(), treeNs / 1e3, headerNs / 1e3, compileNs / 1e3,
                    treeLinks, optimum, headerBytes, maxHeader, sets, staticLeaf + "/" + staticSpine + "/" + staticCore,
                    (double) bitmapBytes / idealBytes, unicastNs / 1e3, unicastCopies,
                    (double) unicastBytes / bitmapBytes, trellisNs / 1e3, trellisLinks, 2 * trellisSwitches,
                    (double) trellisNs / compileNs, bierSets, bierHeader, bierCopies, (double) bierBytes / bitmapBytes,
                    v2Ns / 1e3, v2Header, v2Sets, (double) v2Bytes / idealBytes, (double) bierBytes / v2Bytes);
        }

        static String markdownHeader() {
            return "| k | receivers | shape | tree µs | header µs | tree+header µs | tree links | optimum | "
                    + "tree+header wall µs | bitmap links | header B (all packets) | largest header B | packets | "
                    + "per-group entries transit/edge | "
                    + "static entries "
                    + "leaf/spine/core (max) | bitmap bytes / ideal | unicast µs | unicast link copies | "
                    + "unicast bytes / bitmap | Trellis µs | Trellis links | Trellis entries (flow+group) | "
                    + "Trellis time / ours | BIER sets | BIER header B | BIER copies | BIER bytes / bitmap | "
                    + "spec header µs | spec header B | spec packets | spec bytes / ideal | BIER bytes / spec |\n"
                    + "|" + "---|".repeat(32);
        }

        String markdown() {
            return String.format(Locale.ROOT, "| %d | %d | %s | %.1f | %.1f | %.1f | %d | %d | %.1f | %d | %d | %d "
                            + "| %d | 0/0 | %d/%d/%d | %.4f | %.1f | %d | %.2f | %.1f | %d | %d | %.1f | %d | %d | %d "
                            + "| %.3f | %.1f | %d | %d | %.4f | %.3f |",
                    s.k, s.receivers.length, s.shape(), treeNs / 1e3, headerNs / 1e3, compileNs / 1e3, treeLinks,
                    optimum, compileWallNs / 1e3, bitmapLinks, headerBytes, maxHeader, sets, staticLeaf, staticSpine,
                    staticCore,
                    (double) bitmapBytes / idealBytes, unicastNs / 1e3, unicastCopies,
                    (double) unicastBytes / bitmapBytes, trellisNs / 1e3, trellisLinks, 2 * trellisSwitches,
                    (double) trellisNs / compileNs, bierSets, bierHeader, bierCopies,
                    (double) bierBytes / bitmapBytes, v2Ns / 1e3, v2Header, v2Sets, (double) v2Bytes / idealBytes,
                    (double) bierBytes / v2Bytes);
        }
    }
}
