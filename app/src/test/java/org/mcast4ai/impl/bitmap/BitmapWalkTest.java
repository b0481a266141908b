package org.mcast4ai.impl.bitmap;

import org.junit.jupiter.api.Test;
import org.mcast4ai.engine.FabricGenerators;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.impl.trace.TraceHop;
import org.onlab.packet.IpAddress;
import org.onosproject.core.DefaultApplicationId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The walk the group trace takes for an OpenFlow BITMAP group crosses exactly the links, and reaches exactly the
 * hosts, that the planner's own entries (static tables and the group's stamp rules) send its packet over in an
 * OpenFlow pipeline: random groups on leaf-spine and fat-tree fabrics, whole and after every single link or
 * switch failure.
 */
class BitmapWalkTest {
    private static final int ENTRY = 0;
    private final BitmapPlanner planner = new BitmapPlanner(new DefaultApplicationId(7, "t"), ENTRY,
            BitmapPlanner.DEFAULT_CHAIN_BASE);

    @Test
    void theWalkCrossesTheLinksThePlannersEntriesSendCopiesOver() {
        int groups = 0;
        for (FabricSnapshot whole : List.of(BitmapFabrics.leafSpine(2, 4, 2), BitmapFabrics.leafSpine(3, 5, 3),
                FabricGenerators.fatTree(4))) {
            Map<String, Integer> indices = new HashMap<>(BitmapLayout.of(whole).positionBits());
            Random rnd = new Random(41);
            List<String> cases = new ArrayList<>(List.of("none:0"));
            cases.addAll(BitmapFailureTest.failures(whole));
            for (String failure : cases) {
                FabricSnapshot f = BitmapFailureTest.without(whole, failure);
                BitmapLayout layout = BitmapLayout.of(f, indices);
                OpenFlowSim sim = new OpenFlowSim(f, ENTRY);
                sim.install(planner.staticEntries(layout));
                for (int g = 0; g < 12; g++) {
                    String source = f.hostName(rnd.nextInt(f.hostCount()));
                    List<String> members = BitmapFabrics.randomMembers(f, source, rnd);
                    if (members.isEmpty()) {
                        continue;
                    }
                    String addr = "239.3." + (g / 250) + "." + (g % 250 + 1);
                    BitmapStamp stamp = BitmapStamp.compile(layout, source, members, IpAddress.valueOf(addr), 40000,
                            rnd.nextInt(16)).stamp();
                    sim.install(planner.stampRules(stamp));
                    sim.crossed.clear();
                    Set<String> hosts = new TreeSet<>();
                    sim.send(source, stamp.groupMac().toLong(), addr).forEach(d -> hosts.add(d.host));

                    List<TraceHop> hops = BitmapWalk.walk(layout, f, stamp);
                    Set<String> links = new TreeSet<>();
                    Set<String> reached = new TreeSet<>();
                    for (TraceHop h : hops) {
                        for (long p : h.outPorts()) {
                            if (linkAt(f, h.sw(), p)) {
                                links.add(h.sw() + ":" + p);
                            } else {
                                reached.add(hostAt(f, h.sw(), p));
                            }
                        }
                    }
                    String what = failure + ", group " + addr + " from " + source;
                    assertEquals(new TreeSet<>(sim.crossed), links, what);
                    assertEquals(sim.crossed.size(), links.size(), what + ": a link crossed twice");
                    assertEquals(hosts, reached, what);
                    groups++;
                }
            }
        }
        assertTrue(groups > 300, "groups checked: " + groups);
    }

    private static boolean linkAt(FabricSnapshot f, int sw, long port) {
        for (int e = f.linkStart(sw); e < f.linkStart(sw + 1); e++) {
            if (f.linkFromPort(e) == port) {
                return true;
            }
        }
        return false;
    }

    private static String hostAt(FabricSnapshot f, int sw, long port) {
        for (int i = f.hostStart(sw); i < f.hostStart(sw + 1); i++) {
            if (f.hostPort(f.hostAt(i)) == port) {
                return f.hostName(f.hostAt(i));
            }
        }
        throw new AssertionError("port " + port + " of " + f.switchName(sw) + " leads nowhere");
    }
}
