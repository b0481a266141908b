package org.mcast4ai.impl.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.trace.TraceHop;
import org.mcast4ai.impl.trace.TreeAssembler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.StringJoiner;

/**
 * Follows one stamped packet of a BITMAP group through the static tables {@link BitmapPlanner} derives from a
 * layout, hop by hop, as the switches act on it: the source leaf's stamp hands the packet to its chain with the
 * stamp's uplink choice; a switch sends one copy up (the leaf's chosen uplink, a fixed one above the leaves) when
 * some of the packet's bits lie outside its subtree and the packet came from below or from the sender, and one
 * copy down each port whose reach holds some of its bits; never back out of the port it came in by.
 */
public final class BitmapWalk {
    private BitmapWalk() {
    }

    /**
     * @param layout the layout the static tables were derived from
     * @param fabric its snapshot
     * @param stamp  the group's stamp
     * @return what each switch does with the packet, in the order the copies reach them
     */
    public static List<TraceHop> walk(BitmapLayout layout, FabricSnapshot fabric, BitmapStamp stamp) {
        List<TraceHop> hops = new ArrayList<>();
        int start = fabric.switchIndex(stamp.device().toString());
        if (start < 0) {
            return hops;
        }
        long bits = stamp.bits();
        boolean[] seen = new boolean[fabric.switchCount()];
        Deque<long[]> queue = new ArrayDeque<>();
        queue.add(new long[]{start, stamp.inPort().toLong()});
        while (!queue.isEmpty()) {
            long[] at = queue.poll();
            int sw = (int) at[0];
            long in = at[1];
            BitmapLayout.SwitchPorts ports = layout.switchPorts(fabric.switchName(sw));
            if (ports == null || seen[sw]) {
                continue;
            }
            seen[sw] = true;
            boolean fromSender = sw == start && in == stamp.inPort().toLong();
            boolean fromAbove = contains(ports.upPorts(), in);
            boolean fromBelow = contains(ports.fromBelow(), in);
            if (!fromSender && !fromAbove && !fromBelow) {
                continue; // no entry rule takes it
            }
            List<Long> out = new ArrayList<>();
            StringJoiner serves = new StringJoiner("; ");
            if (!fromAbove && (ports.upReach() & bits) != 0) {
                long up = fromSender ? leafUplink(layout, ports, stamp) : ports.fixedUplink() < 0 ? -1
                        : ports.upPorts()[ports.fixedUplink()];
                if (up >= 0 && up != in) {
                    out.add(up);
                    serves.add("up " + bitList(ports.upReach() & bits));
                }
            }
            long[] down = ports.downPorts();
            long below = 0;
            for (int i = 0; i < down.length; i++) {
                if ((ports.downReach(i) & bits) != 0 && down[i] != in) {
                    out.add(down[i]);
                    below |= ports.downReach(i) & bits;
                }
            }
            if (below != 0) {
                serves.add("down " + bitList(below));
            }
            hops.add(new TraceHop(sw, in, out.stream().mapToLong(Long::longValue).toArray(),
                    "stamp bits " + serves));
            for (long p : out) {
                int e = TreeAssembler.linkAt(fabric, sw, p);
                if (e >= 0) {
                    queue.add(new long[]{fabric.linkTo(e), fabric.linkToPort(e)});
                }
            }
        }
        return hops;
    }

    // the source leaf's up copy: the stamp names a spread slot (its uplink now) or, while no uplink reaches every
    // receiver outside the leaf, a port; the leaf has rules for the port choice only then
    private static long leafUplink(BitmapLayout layout, BitmapLayout.SwitchPorts leaf, BitmapStamp stamp) {
        int u = stamp.uplink();
        if (u > BitmapLayout.SLOT_BASE && u <= BitmapLayout.SLOT_BASE + BitmapLayout.SLOTS) {
            return layout.slotUplink(leaf.name(), u - BitmapLayout.SLOT_BASE);
        }
        if (u > 0 && layout.slotUplink(leaf.name(), 1) < 0 && contains(leaf.upPorts(), u)) {
            return u;
        }
        return -1;
    }

    private static boolean contains(long[] ports, long p) {
        for (long x : ports) {
            if (x == p) {
                return true;
            }
        }
        return false;
    }

    private static String bitList(long bits) {
        StringJoiner j = new StringJoiner(",");
        for (long b = bits; b != 0; b &= b - 1) {
            j.add(Integer.toString(Long.numberOfTrailingZeros(b)));
        }
        return j.toString();
    }
}
