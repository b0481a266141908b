package org.mcast4ai.impl.p4;

import com.google.common.io.BaseEncoding;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.StampPlan;
import org.mcast4ai.engine.FabricSnapshot;
import org.mcast4ai.engine.bitmap.BitIndexTable;
import org.mcast4ai.impl.fabric.HostResolver;
import org.onosproject.net.HostId;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What operators and senders read of a group on P4 switches: its stamp and its bit map. Pure. */
public final class P4Views {
    private static final BaseEncoding HEX = BaseEncoding.base16().lowerCase();

    private P4Views() {
    }

    /**
     * @param stamp a group's installed stamp
     * @return what it holds on its source leaf
     */
    public static StampPlan plan(P4Stamp stamp) {
        return new StampPlan(stamp.device(), stamp.sender().port(), stamp.slot(), stamp.stamp().multicastGroup(),
                stamp.packets() + 3, hex(stamp));
    }

    /**
     * @param group  the group
     * @param stamp  its installed stamp
     * @param table  the P4 fabric's bit indices, or null if unknown here
     * @param fabric the fabric
     * @param hosts  the host names' resolver
     * @return its reachable receivers' bit indices and its headers
     */
    public static GroupBitmap bitmap(P2mpGroup group, P4Stamp stamp, BitIndexTable table, FabricSnapshot fabric,
                                     HostResolver hosts) {
        Map<Endpoint, Integer> bits = new LinkedHashMap<>();
        if (table != null) {
            int[] hostBits = table.hostBits(fabric);
            for (Endpoint r : group.request().receivers()) {
                HostId id = hosts.idOrNull(r);
                int h = id == null || group.unreachable().contains(r) ? -1 : fabric.hostIndex(hosts.nameOf(id));
                if (h >= 0 && hostBits[h] >= 0) {
                    bits.put(r, hostBits[h]);
                }
            }
        }
        return new GroupBitmap(group.id(), bits, hex(stamp));
    }

    private static List<String> hex(P4Stamp stamp) {
        List<String> out = new ArrayList<>();
        stamp.headers().forEach(h -> out.add(HEX.encode(h)));
        return out;
    }
}
