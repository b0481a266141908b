package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.DeviceId;
import org.mcast4ai.impl.p4.Mcast4aiPipeconf;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupServiceAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ONOS's group service over BMv2 switches for the app's ALL groups, as ONOS's P4Runtime driver turns them into the
 * packet replication engine's multicast groups: one replica per bucket, its port the bucket's output and its
 * instance the port's occurrence among the buckets, from 0. Written with BMv2's runtime CLI on the flow service's
 * executor (so a group is written before the entries of a later batch), listed ADDED and announced once the
 * switch took it.
 */
public class Bmv2GroupService extends GroupServiceAdapter {
    private static final Logger log = LoggerFactory.getLogger(Bmv2GroupService.class);
    private static final Pattern NODE = Pattern.compile("created with handle (\\d+)");

    private final Map<DeviceId, Integer> thrift;
    private final Bmv2Cli cli;
    private final Executor executor;
    private final Map<DeviceId, Map<GroupKey, DefaultGroup>> groups = new ConcurrentHashMap<>();
    private final ListenerRegistry<GroupEvent, GroupListener> listeners = new ListenerRegistry<>();

    /**
     * @param thrift   each switch's thrift port
     * @param cli      the runtime CLI
     * @param executor where writes run, one after another
     */
    public Bmv2GroupService(Map<DeviceId, Integer> thrift, Bmv2Cli cli, Executor executor) {
        this.thrift = Map.copyOf(thrift);
        this.cli = cli;
        this.executor = executor;
    }

    /**
     * @param buckets an ALL group's buckets
     * @return its replicas as (instance, port), in bucket order
     */
    static List<int[]> replicas(GroupBuckets buckets) {
        Map<Long, Integer> seen = new HashMap<>();
        List<int[]> out = new ArrayList<>();
        for (GroupBucket b : buckets.buckets()) {
            for (Instruction i : b.treatment().allInstructions()) {
                if (i instanceof Instructions.OutputInstruction) {
                    PortNumber p = ((Instructions.OutputInstruction) i).port();
                    int instance = seen.merge(p.toLong(), 1, Integer::sum) - 1;
                    out.add(new int[]{instance, (int) p.toLong()});
                }
            }
        }
        return out;
    }

    // Writes a multicast group's replicas (a node each: its replica number and port); returns the error, or null.
    // Make before break, as the P4Runtime server turns a group's MODIFY into per-node changes: the nodes that stay
    // are left alone, new ones are created and associated before the ones no longer wanted go, so the replicas
    // kept never stop.
    private String write(DeviceId device, int mgrp, GroupBuckets buckets) {
        Integer port = thrift.get(device);
        if (port == null) {
            return "device " + device + " is not a switch of the P4 lab";
        }
        return writeMulticast(port, mgrp, buckets);
    }

    // a group of either type: an ALL group is a multicast group, a CLONE group a clone session (mirroring)
    private String write(DeviceId device, GroupDescription.Type type, int id, GroupBuckets buckets) {
        if (type != GroupDescription.Type.CLONE) {
            return write(device, id, buckets);
        }
        Integer port = thrift.get(device);
        if (port == null) {
            return "device " + device + " is not a switch of the P4 lab";
        }
        try {
            if (buckets == null) {
                return runAll(port, List.of("mirroring_delete " + id));
            }
            List<PortNumber> to = new ArrayList<>();
            for (GroupBucket b : buckets.buckets()) {
                for (Instruction i : b.treatment().allInstructions()) {
                    if (i instanceof Instructions.OutputInstruction) {
                        to.add(((Instructions.OutputInstruction) i).port());
                    }
                }
            }
            if (to.size() != 1) {
                return "a clone session has one port, not " + to.size();
            }
            // the interpreter maps CONTROLLER to the program's CPU port
            PortNumber out = to.get(0);
            return runAll(port, List.of("mirroring_add " + id + " "
                    + (PortNumber.CONTROLLER.equals(out) ? Mcast4aiPipeconf.CPU_PORT : out.toLong())));
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private String writeMulticast(int port, int mgrp, GroupBuckets buckets) {
        try {
            // what the switch holds, not what was last written: a write that failed half way, or a group the
            // switch holds from before the runner started (a controller restart), is seen as it is
            List<int[]> there = held(port).get(mgrp);
            if (there == null && buckets == null) {
                return null;
            }
            java.util.Set<String> want = new java.util.LinkedHashSet<>();
            if (buckets != null) {
                replicas(buckets).forEach(r -> want.add(r[0] + " " + r[1]));
            }
            java.util.Set<String> kept = new java.util.HashSet<>();
            List<Integer> unused = new ArrayList<>();
            if (there != null) {
                for (int[] n : there) {
                    String replica = n[0] + " " + n[1];
                    if (want.contains(replica) && kept.add(replica)) {
                        continue;
                    }
                    unused.add(n[2]);
                }
            }
            List<String> creates = new ArrayList<>();
            want.stream().filter(r -> !kept.contains(r)).forEach(r -> creates.add("mc_node_create " + r));
            if (creates.isEmpty() && unused.isEmpty() && there != null) {
                return null;
            }
            String error = there == null ? runAll(port, List.of("mc_mgrp_create " + mgrp)) : null;
            if (error != null) {
                return error;
            }
            List<Integer> handles = new ArrayList<>();
            List<String> made = creates.isEmpty() ? List.of() : cli.run(port, creates);
            for (int i = 0; i < creates.size(); i++) {
                String e = Bmv2Cli.error(made.get(i));
                if (e != null) {
                    return creates.get(i) + ": " + e;
                }
                Matcher m = NODE.matcher(made.get(i));
                if (!m.find()) {
                    return creates.get(i) + ": no node handle in " + made.get(i).trim();
                }
                handles.add(Integer.parseInt(m.group(1)));
            }
            List<String> last = new ArrayList<>();
            handles.forEach(h -> last.add("mc_node_associate " + mgrp + " " + h));
            for (int h : new java.util.LinkedHashSet<>(unused)) {
                last.add("mc_node_dissociate " + mgrp + " " + h);
                last.add("mc_node_destroy " + h);
            }
            return runAll(port, last);
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    // runs commands in order; the first error, or null
    private String runAll(int port, List<String> commands) throws IOException {
        if (commands.isEmpty()) {
            return null;
        }
        List<String> answers = cli.run(port, commands);
        for (int i = 0; i < commands.size(); i++) {
            String error = Bmv2Cli.error(answers.get(i));
            if (error != null) {
                return commands.get(i) + ": " + error;
            }
        }
        return null;
    }

    private static final Pattern MGRP = Pattern.compile("mgrp\\((\\d+)\\)");
    private static final Pattern L1 = Pattern.compile("L1h=(\\d+), rid=(\\d+)\\) -> \\(ports=\\[([0-9, ]*)\\]");

    // the switch's multicast groups: per group, its nodes as (rid, port, handle)
    private Map<Integer, List<int[]>> held(int port) throws IOException {
        Map<Integer, List<int[]>> out = new HashMap<>();
        List<int[]> cur = null;
        for (String line : cli.run(port, List.of("mc_dump")).get(0).split("\n")) {
            Matcher g = MGRP.matcher(line);
            if (g.find()) {
                cur = new ArrayList<>();
                out.put(Integer.parseInt(g.group(1)), cur);
                continue;
            }
            Matcher n = L1.matcher(line);
            if (n.find() && cur != null) {
                for (String p : n.group(3).split(",")) {
                    if (!p.isBlank()) {
                        cur.add(new int[]{Integer.parseInt(n.group(2)), Integer.parseInt(p.trim()),
                                Integer.parseInt(n.group(1))});
                    }
                }
            }
        }
        return out;
    }

    @Override
    public void addGroup(GroupDescription desc) {
        int id = Objects.requireNonNull(desc.givenGroupId(), "a multicast group needs its id");
        DefaultGroup group = new DefaultGroup(GroupId.valueOf(id), desc);
        // ONOS's store lists the group PENDING_ADD at once
        group.setState(Group.GroupState.PENDING_ADD);
        groups.computeIfAbsent(desc.deviceId(), d -> new ConcurrentHashMap<>()).putIfAbsent(desc.appCookie(), group);
        executor.execute(() -> {
            String error = write(desc.deviceId(), desc.type(), id, desc.buckets());
            if (error == null) {
                group.setState(Group.GroupState.ADDED);
                groups.computeIfAbsent(desc.deviceId(), d -> new ConcurrentHashMap<>()).put(desc.appCookie(), group);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_ADDED, group));
            } else {
                log.warn("{} refused multicast group {}: {}", desc.deviceId(), id, error);
                group.setState(Group.GroupState.PENDING_ADD);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_ADD_FAILED, group));
            }
        });
    }

    /**
     * A switch came back with its replication engine empty: its multicast groups are written again, as ONOS's
     * group audit adds the groups a device lacks.
     *
     * @param device the switch
     */
    public void reinstall(DeviceId device) {
        executor.execute(() -> {
            for (DefaultGroup g : groups.getOrDefault(device, Map.of()).values()) {
                String error = write(device, g.type(), g.id().id(), g.buckets());
                if (error != null) {
                    log.warn("{} back: multicast group {} not written again: {}", device, g.id().id(), error);
                }
            }
        });
    }

    @Override
    public Group getGroup(DeviceId deviceId, GroupKey appCookie) {
        return groups.getOrDefault(deviceId, Map.of()).get(appCookie);
    }

    @Override
    public void setBucketsForGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets, GroupKey newCookie,
                                   ApplicationId appId) {
        executor.execute(() -> {
            DefaultGroup old = groups.getOrDefault(deviceId, Map.of()).get(oldCookie);
            if (old == null) {
                log.warn("no group {} on {}", oldCookie, deviceId);
                return;
            }
            GroupKey key = newCookie != null ? newCookie : oldCookie;
            DefaultGroup updated = new DefaultGroup(old.id(), new DefaultGroupDescription(deviceId, old.type(),
                    buckets, key, old.id().id(), old.appId()));
            String error = write(deviceId, old.type(), old.id().id(), buckets);
            if (error == null) {
                updated.setState(Group.GroupState.ADDED);
                groups.get(deviceId).remove(oldCookie);
                groups.get(deviceId).put(key, updated);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_UPDATED, updated));
            } else {
                log.warn("{} refused multicast group {}: {}", deviceId, old.id().id(), error);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_UPDATE_FAILED, old));
            }
        });
    }

    @Override
    public void removeGroup(DeviceId deviceId, GroupKey appCookie, ApplicationId appId) {
        executor.execute(() -> {
            DefaultGroup old = groups.getOrDefault(deviceId, Map.of()).get(appCookie);
            if (old == null) {
                return;
            }
            int mgrp = old.id().id();
            String error = write(deviceId, old.type(), mgrp, null);
            if (error == null && old.type() != GroupDescription.Type.CLONE) {
                try {
                    String e = Bmv2Cli.error(cli.run(thrift.get(deviceId), List.of("mc_mgrp_destroy " + mgrp)).get(0));
                    error = e;
                } catch (IOException e) {
                    error = e.getMessage();
                }
            }
            if (error == null) {
                groups.get(deviceId).remove(appCookie);
                old.setState(Group.GroupState.PENDING_DELETE);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_REMOVED, old));
            } else {
                log.warn("{} refused to remove multicast group {}: {}", deviceId, mgrp, error);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_REMOVE_FAILED, old));
            }
        });
    }

    @Override
    public Iterable<Group> getGroups(DeviceId deviceId, ApplicationId appId) {
        return groups.getOrDefault(deviceId, Map.of()).values().stream()
                .filter(g -> Objects.equals(g.appId(), appId)).collect(ImmutableList.toImmutableList());
    }

    @Override
    public Iterable<Group> getGroups(DeviceId deviceId) {
        return ImmutableList.copyOf(groups.getOrDefault(deviceId, Map.of()).values());
    }

    @Override
    public void addListener(GroupListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void removeListener(GroupListener listener) {
        listeners.removeListener(listener);
    }
}
