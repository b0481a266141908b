package org.mcast4ai.gui;

import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.api.P4FabricStatus;
import org.onosproject.net.DeviceId;
import org.onosproject.ui.UiTopoOverlay;
import org.onosproject.ui.topo.PropertyPanel;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The mcast4ai topology overlay, selectable from the topology view's toolbar: adds the groups by state and the
 * P4 static state to the summary panel, and to a switch's details the live groups whose copies cross it and its
 * P4 static state.
 */
public class Mcast4aiTopoOverlay extends UiTopoOverlay {
    /** The overlay id; the JavaScript registers the same. */
    public static final String ID = "mcast4ai-overlay";

    private final P2mpGroupService groups;
    private final Supplier<P4FabricService> p4;

    /**
     * @param groups the group service
     * @param p4     the P4 fabric service, or null while there is none
     */
    public Mcast4aiTopoOverlay(P2mpGroupService groups, Supplier<P4FabricService> p4) {
        super(ID);
        this.groups = groups;
        this.p4 = p4;
    }

    @Override
    public void modifySummary(PropertyPanel pp) {
        Map<GroupState, Integer> byState = new EnumMap<>(GroupState.class);
        for (P2mpGroup g : groups.getGroups()) {
            byState.merge(g.state(), 1, Integer::sum);
        }
        pp.addSeparator();
        pp.addProp("mcast4ai-groups", "Multicast groups", groups.groupCount());
        for (GroupState s : new GroupState[]{GroupState.INSTALLED, GroupState.DEGRADED, GroupState.FAILED,
                GroupState.INSTALLING}) {
            pp.addProp("mcast4ai-" + s.name().toLowerCase(java.util.Locale.ROOT), "  " + s,
                    byState.getOrDefault(s, 0));
        }
        P4FabricStatus st = status();
        if (st != null && !st.switches().isEmpty()) {
            pp.addProp("mcast4ai-p4", "P4 switches", st.switches().size() + " (" + st.unacknowledged().size()
                    + " pending" + (st.problem() == null ? "" : ", failed: " + st.problem()) + ")");
        }
    }

    @Override
    public void modifyDeviceDetails(PropertyPanel pp, DeviceId deviceId) {
        int crossing = 0;
        for (P2mpGroup g : groups.getGroups()) {
            if (g.state() == GroupState.INSTALLED || g.state() == GroupState.DEGRADED) {
                GroupTree t = groups.tree(g.id());
                if (t.hop(deviceId) != null) {
                    crossing++;
                }
            }
        }
        pp.addSeparator();
        pp.addProp("mcast4ai-crossing", "Multicast groups through", crossing);
        P4FabricStatus st = status();
        String id = deviceId.toString();
        if (st != null && st.switches().contains(id)) {
            String state = st.problem() != null ? "failed: " + st.problem()
                    : st.unacknowledged().contains(id) || st.joining().contains(id) ? "pending" : "in place";
            pp.addProp("mcast4ai-p4-state", "P4 static state", state);
        }
    }

    private P4FabricStatus status() {
        P4FabricService s = p4 == null ? null : p4.get();
        return s == null ? null : s.status();
    }
}
