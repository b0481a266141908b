package org.mcast4ai.bench;

import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.engine.bitmap.HeaderV2;
import org.mcast4ai.engine.bitmap.HeaderV2Codec;
import org.mcast4ai.engine.bitmap.ReplicationSimulator;
import org.mcast4ai.engine.bitmap.SwitchTables;
import org.mcast4ai.impl.p4.P4StampPlanner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a group costs on a P4 fabric: its stamp at the source leaf (packets per send, header bytes, the leaf's
 * entries; no other switch holds anything), the time to plan it, and what the group manager's reachability check
 * costs per fabric snapshot (the static tables and one play of the per-hop rule per source leaf), on fat trees
 * with groups drawn as schedulers draw them (racks spread over the fabric, random receivers, MoE top-8).
 *
 * <p>Usage: {@code tools/bench/stamp [--k 48,64] [--groups 30] [--out DIR]}; writes {@code stamp-results.md} to DIR.
 */
public final class StampBench {
    private StampBench() {
    }

    /**
     * @param args options
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws IOException {
        int[] ks = {48, 64};
        int groups = 30;
        Path out = Paths.get("tools", "bench", "target", "stamp");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--k":
                    ks = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--groups":
                    groups = Integer.parseInt(args[++i]);
                    break;
                case "--out":
                    out = Paths.get(args[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (use --k 48,64 --groups 30 --out DIR)");
            }
        }
        StringBuilder md = new StringBuilder("# A group's stamp on a P4 fabric (`tools/bench/stamp`)\n\n"
                + "Per shape, " + groups + " groups drawn at random (seeded); the stamp is the group's only state:"
                + " the source leaf's entries below and one multicast group. Plan: median CPU time to plan and"
                + " encode one group's headers (`P4StampPlanner.headers`).\n\n"
                + "| k | shape | packets per send (mean, max) | header bytes per send (mean) | largest header |"
                + " leaf table entries (mean) | plan (median us) |\n|---|---|---|---|---|---|---|\n");
        StringBuilder fabric = new StringBuilder("\n| k | hosts | static tables + simulator (ms, fastest of 3) |"
                + " one play per source leaf (ms, fastest of 5) |\n|---|---|---|---|\n");
        for (int k : ks) {
            FabricSnapshot f = FabricGenerators.fatTree(k);
            BitIndexTable bits = BitIndexTable.forFabric(f);
            int[] hostBits = bits.hostBits(f);
            ReplicationSimulator sim = null;
            double tablesMs = Double.MAX_VALUE;
            for (int r = 0; r < 3; r++) {    // the fastest of three: the first pays for class loading and the JIT
                long t0 = System.nanoTime();
                sim = new ReplicationSimulator(f, SwitchTables.build(f, bits));
                tablesMs = Math.min(tablesMs, (System.nanoTime() - t0) / 1e6);
            }
            // the reachability play: a receiver on every other leaf, as the group manager runs it per source leaf
            int[] onLeaf = new int[f.switchCount()];
            Arrays.fill(onLeaf, -1);
            int source = f.hostCount() - 1;
            for (int h = 0; h < f.hostCount(); h++) {
                if (h != source && hostBits[h] >= 0 && onLeaf[f.hostSwitch(h)] < 0) {
                    onLeaf[f.hostSwitch(h)] = h;
                }
            }
            int[] every = Arrays.stream(onLeaf).filter(h -> h >= 0).map(h -> hostBits[h]).sorted().toArray();
            HeaderV2Codec codec = new HeaderV2Codec(bits.geometry());
            double playMs = Double.MAX_VALUE;
            for (int r = 0; r < 5; r++) {
                long p0 = System.nanoTime();
                List<HeaderV2> sets = new ArrayList<>();
                P4StampPlanner.headers(bits.geometry(), every).forEach(h -> sets.add(codec.decode(h)));
                Median.consume(sim.simulate(source, sets, 0).hostCopies());
                playMs = Math.min(playMs, (System.nanoTime() - p0) / 1e6);
            }
            fabric.append(String.format("| %d | %,d | %.0f | %.1f |%n", k, f.hostCount(), tablesMs, playMs));
            String[][] shapes = {{"8 random (MoE top-8)", "random", "8"}, {"1,024 in spread racks", "racks", "1024"},
                {"4,096 in spread racks", "racks", "4096"}, {"1,024 random", "random", "1024"}};
            for (String[] shape : shapes) {
                int n = Integer.parseInt(shape[2]);
                double packets = 0;
                int maxPackets = 0;
                double bytes = 0;
                int largest = 0;
                double entries = 0;
                List<int[]> drawn = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    Scenario s = shape[1].equals("random") ? Scenario.random(k, f, n, 1000 + g)
                            : Scenario.spreadRacks(k, f, n, 1000 + g);
                    int[] rb = Arrays.stream(s.receivers).map(h -> hostBits[h]).sorted().toArray();
                    drawn.add(rb);
                    List<byte[]> hs = P4StampPlanner.headers(bits.geometry(), rb);
                    packets += hs.size();
                    maxPackets = Math.max(maxPackets, hs.size());
                    for (byte[] h : hs) {
                        bytes += h.length;
                        largest = Math.max(largest, h.length);
                    }
                    entries += hs.size() + 2;
                }
                int[] next = {0};
                Median.Timing t = Median.measure(() -> {
                    int[] rb = drawn.get(next[0]++ % drawn.size());
                    return P4StampPlanner.headers(bits.geometry(), rb).size();
                }, 30, 1_000_000_000L);
                md.append(String.format("| %d | %s | %.2f, %d | %.0f | %d | %.1f | %.0f |%n", k, shape[0],
                        packets / groups, maxPackets, bytes / groups, largest, entries / groups, t.cpuNs / 1e3));
            }
        }
        md.append("\nWhat the group manager's reachability check costs per fabric snapshot (shared by every group;"
                + " the static tables and simulator are built once per snapshot, the play once per source leaf):\n")
                .append(fabric);
        System.out.print(md);
        Files.createDirectories(out);
        Files.write(out.resolve("stamp-results.md"), md.toString().getBytes(StandardCharsets.UTF_8));
    }
}
