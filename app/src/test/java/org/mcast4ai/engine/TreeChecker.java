package org.mcast4ai.engine;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks a tree the way the data plane would use it: a packet leaves the source host, and each switch
 * on the tree copies it to its out ports, across fabric links (found in the snapshot by port) or to the
 * hosts on that port. Independent of how the tree was computed.
 */
final class TreeChecker {
    private TreeChecker() {
    }

    /**
     * Asserts that every reachable receiver gets exactly one copy, no other host (nor the source) gets
     * one, no switch gets the packet twice or on a port other than its in port, no out port equals the
     * in port, every port leads somewhere, the tree lists parents before children, its link count is the
     * number of distinct links traversed, and exactly the unreachable receivers are reported as such.
     *
     * @param f         the snapshot
     * @param t         the tree
     * @param source    source host
     * @param receivers receiver hosts
     */
    static void assertDelivers(FabricSnapshot f, MulticastTree t, int source, int[] receivers) {
        int[] pos = new int[f.switchCount()];
        Arrays.fill(pos, -1);
        for (int i = 0; i < t.size(); i++) {
            assertEquals(-1, pos[t.switchAt(i)], "switch listed twice");
            pos[t.switchAt(i)] = i;
        }
        int root = f.hostSwitch(source);
        assertEquals(root, t.switchAt(0), "tree starts at the source leaf");
        assertEquals(f.hostPort(source), t.inPort(0), "root in port is the source host port");
        assertEquals(t.size() - 1, t.fabricLinks(), "a tree has one link per non-root switch");
        for (int l = 0; l < t.fabricLinks(); l++) {
            assertTrue(pos[t.linkFrom(l)] >= 0 && pos[t.linkFrom(l)] < pos[t.linkTo(l)], "parents before children");
        }

        int[] copies = new int[f.hostCount()];
        boolean[] visited = new boolean[f.switchCount()];
        Set<Integer> linksUsed = new HashSet<>();
        ArrayDeque<long[]> queue = new ArrayDeque<>();
        queue.add(new long[]{root, f.hostPort(source)});
        while (!queue.isEmpty()) {
            long[] at = queue.poll();
            int sw = (int) at[0];
            int p = pos[sw];
            assertTrue(p >= 0, "packet reached switch " + f.switchName(sw) + " that is not on the tree");
            assertFalse(visited[sw], "switch " + f.switchName(sw) + " got the packet twice (loop)");
            visited[sw] = true;
            assertEquals(t.inPort(p), at[1], "packet arrives on the in port at " + f.switchName(sw));
            long[] out = t.outPorts(p);
            for (int i = 0; i < out.length; i++) {
                assertNotEquals(t.inPort(p), out[i], "out port equals in port at " + f.switchName(sw));
                assertTrue(i == 0 || out[i - 1] < out[i], "out ports ascending and distinct");
                boolean delivered = false;
                for (int k = f.hostStart(sw); k < f.hostStart(sw + 1); k++) {
                    if (f.hostPort(f.hostAt(k)) == out[i]) {
                        copies[f.hostAt(k)]++;
                        delivered = true;
                    }
                }
                int link = -1;
                for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
                    if (f.linkFromPort(e) == out[i]) {
                        link = e;
                    }
                }
                if (link >= 0) {
                    assertTrue(linksUsed.add(link), "link used twice");
                    queue.add(new long[]{f.linkTo(link), f.linkToPort(link)});
                } else if (!delivered) {
                    fail("out port " + out[i] + " at " + f.switchName(sw) + " leads nowhere");
                }
            }
        }
        for (int i = 0; i < t.size(); i++) {
            assertTrue(visited[t.switchAt(i)], "tree switch never reached: " + f.switchName(t.switchAt(i)));
        }
        assertEquals(t.fabricLinks(), linksUsed.size(), "link count equals distinct links traversed");

        boolean[] reachable = reachableFrom(f, root);
        boolean[] member = new boolean[f.hostCount()];
        Set<Integer> expectedUnreachable = new HashSet<>();
        for (int r : receivers) {
            member[r] = true;
            if (reachable[f.hostSwitch(r)]) {
                assertEquals(1, copies[r], "receiver " + f.hostName(r) + " gets exactly one copy");
            } else {
                assertEquals(0, copies[r]);
                expectedUnreachable.add(r);
            }
        }
        for (int h = 0; h < f.hostCount(); h++) {
            if (!member[h]) {
                assertEquals(0, copies[h], "non-member " + f.hostName(h) + " gets no copy");
            }
        }
        Set<Integer> reported = new HashSet<>();
        for (int u : t.unreachable()) {
            reported.add(u);
        }
        assertEquals(expectedUnreachable, reported, "unreachable receivers");
    }

    /**
     * @param f    the snapshot
     * @param root a switch
     * @return per switch, whether a directed path from root reaches it
     */
    static boolean[] reachableFrom(FabricSnapshot f, int root) {
        boolean[] seen = new boolean[f.switchCount()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        seen[root] = true;
        queue.add(root);
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int e = f.linkStart(u); e < f.linkStart(u + 1); e++) {
                if (!seen[f.linkTo(e)]) {
                    seen[f.linkTo(e)] = true;
                    queue.add(f.linkTo(e));
                }
            }
        }
        return seen;
    }
}
