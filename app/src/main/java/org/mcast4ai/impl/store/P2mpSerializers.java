package org.mcast4ai.impl.store;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.StateChange;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.mcast4ai.impl.program.DeviceEntry;
import org.mcast4ai.impl.program.Programmed;
import org.mcast4ai.impl.program.TreeBranch;
import org.onlab.util.KryoNamespace;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.store.serializers.KryoNamespaces;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The Kryo namespace for the group store's distributed maps: ONOS's API types plus every mcast4ai type. */
public final class P2mpSerializers {
    /** Namespace registering every class a stored group or plan contains. */
    public static final KryoNamespace API = KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .register(P2mpGroup.class, P2mpGroupRequest.class, P2mpGroupId.class, GroupKey.class, Endpoint.class,
                    GroupState.class, ReplicationMode.class, Reliability.class, StateChange.class,
                    BitmapStamp.class,
                    org.mcast4ai.impl.p4.P4Stamp.class, FailureKind.class, StaticTables.class, VirtualPeer.class)
            .register(new GroupPlanSerializer(), GroupPlan.class)
            .register(new TreeBranchSerializer(), TreeBranch.class)
            .register(new ProgrammedSerializer(), Programmed.class)
            .build("mcast4ai");

    private P2mpSerializers() {
    }

    /**
     * Writes a plan as plain device names and port numbers: its sorted port sets carry a comparator that a
     * field serializer cannot reproduce.
     */
    public static final class GroupPlanSerializer extends Serializer<GroupPlan> {

        public GroupPlanSerializer() {
            super(false, true);
        }

        @Override
        public void write(Kryo kryo, Output out, GroupPlan plan) {
            out.writeInt(plan.branches().size(), true);
            plan.branches().forEach((d, b) -> writeBranch(out, d, b));
            writeLinks(out, plan.links());
        }

        @Override
        public GroupPlan read(Kryo kryo, Input in, Class<GroupPlan> type) {
            int n = in.readInt(true);
            Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                TreeBranch b = readBranch(in);
                branches.put(b.device(), b.branch());
            }
            return new GroupPlan(branches, readLinks(in));
        }
    }

    /** Writes a tree entry as its device name, in port and out port numbers. */
    public static final class TreeBranchSerializer extends Serializer<TreeBranch> {

        public TreeBranchSerializer() {
            super(false, true);
        }

        @Override
        public void write(Kryo kryo, Output out, TreeBranch e) {
            writeBranch(out, e.device(), e.branch());
        }

        @Override
        public TreeBranch read(Kryo kryo, Input in, Class<TreeBranch> type) {
            return readBranch(in);
        }
    }

    /** Writes a group's record: its entries (each with its class) and the installed tree's links. */
    public static final class ProgrammedSerializer extends Serializer<Programmed> {

        public ProgrammedSerializer() {
            super(false, true);
        }

        @Override
        public void write(Kryo kryo, Output out, Programmed p) {
            for (Set<DeviceEntry> entries : List.of(p.installed(), p.uncertain())) {
                out.writeInt(entries.size(), true);
                for (DeviceEntry e : entries) {
                    kryo.writeClassAndObject(out, e);
                }
            }
            writeLinks(out, p.links());
        }

        @Override
        public Programmed read(Kryo kryo, Input in, Class<Programmed> type) {
            List<List<DeviceEntry>> sets = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                int n = in.readInt(true);
                List<DeviceEntry> entries = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    entries.add((DeviceEntry) kryo.readClassAndObject(in));
                }
                sets.add(entries);
            }
            return new Programmed(sets.get(0), sets.get(1), readLinks(in));
        }
    }

    private static void writeBranch(Output out, DeviceId device, GroupPlan.Branch branch) {
        out.writeString(device.toString());
        out.writeLong(branch.inPort().toLong());
        out.writeInt(branch.outPorts().size(), true);
        for (PortNumber p : branch.outPorts()) {
            out.writeLong(p.toLong());
        }
    }

    private static TreeBranch readBranch(Input in) {
        DeviceId device = DeviceId.deviceId(in.readString());
        PortNumber inPort = PortNumber.portNumber(in.readLong());
        int outs = in.readInt(true);
        Set<PortNumber> outPorts = new TreeSet<>((a, b) -> Long.compare(a.toLong(), b.toLong()));
        for (int k = 0; k < outs; k++) {
            outPorts.add(PortNumber.portNumber(in.readLong()));
        }
        return new TreeBranch(device, new GroupPlan.Branch(inPort, outPorts));
    }

    private static void writeLinks(Output out, List<ConnectPoint[]> links) {
        out.writeInt(links.size(), true);
        for (ConnectPoint[] link : links) {
            for (ConnectPoint cp : link) {
                out.writeString(cp.deviceId().toString());
                out.writeLong(cp.port().toLong());
            }
        }
    }

    private static List<ConnectPoint[]> readLinks(Input in) {
        int l = in.readInt(true);
        List<ConnectPoint[]> links = new ArrayList<>(l);
        for (int i = 0; i < l; i++) {
            ConnectPoint from = new ConnectPoint(DeviceId.deviceId(in.readString()),
                    PortNumber.portNumber(in.readLong()));
            ConnectPoint to = new ConnectPoint(DeviceId.deviceId(in.readString()),
                    PortNumber.portNumber(in.readLong()));
            links.add(new ConnectPoint[]{from, to});
        }
        return links;
    }
}
