package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.DeviceId;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * GroupService that programs ALL, INDIRECT and SELECT groups on the lab's Open vSwitch bridges with
 * one {@code ovs-ofctl -O OpenFlow13 --bundle add-groups BRIDGE -} call per operation
 * ({@code add}, {@code modify} or {@code delete} line). A group is ADDED (event GROUP_ADDED) once
 * the switch committed the bundle; a refusal gives GROUP_ADD_FAILED / GROUP_UPDATE_FAILED /
 * GROUP_REMOVE_FAILED with the switch's message in {@link #failure(DeviceId, GroupKey)}. Anything
 * {@link OfctlTranslator#group} does not map is refused the same way, never ignored.
 */
public class OvsGroupService implements GroupService {

    private static final Logger log = LoggerFactory.getLogger(OvsGroupService.class);

    private final Map<DeviceId, String> bridges;
    private final Ofctl ofctl;
    private final Executor executor;
    private final Map<DeviceId, Map<GroupKey, DefaultGroup>> groups = new ConcurrentHashMap<>();
    private final Map<DeviceId, Map<GroupKey, String>> failures = new ConcurrentHashMap<>();
    private final Map<DeviceId, AtomicInteger> nextId = new ConcurrentHashMap<>();
    private final ListenerRegistry<GroupEvent, GroupListener> listeners = new ListenerRegistry<>();
    private volatile Predicate<DeviceId> available = d -> true;
    private volatile boolean addedOnAudit;
    private final AtomicLong reinstalled = new AtomicLong();
    private final AtomicLong extraneous = new AtomicLong();

    /**
     * Creates the service.
     *
     * @param fabric   lab fabric (device id to bridge)
     * @param ofctl    ovs-ofctl runner
     * @param executor executor shared with {@link OvsFlowRuleService}, runs in submission order
     */
    public OvsGroupService(LabFabric fabric, Ofctl ofctl, Executor executor) {
        this(fabric, ofctl, executor, Runnable::run);
    }

    /**
     * Creates the service.
     *
     * @param fabric     lab fabric (device id to bridge)
     * @param ofctl      ovs-ofctl runner
     * @param executor   executor shared with {@link OvsFlowRuleService}, runs in submission order
     * @param switchPool executor for the audit's parallel reads of the switches
     */
    public OvsGroupService(LabFabric fabric, Ofctl ofctl, Executor executor, Executor switchPool) {
        this.bridges = fabric.switches().stream().collect(Collectors.toMap(
                s -> DeviceId.deviceId(s.deviceId()), LabFabric.Switch::bridge));
        this.ofctl = ofctl;
        this.executor = executor;
        this.switchPool = switchPool;
    }

    private final Executor switchPool;
    private final WriteMarks<String> marks = new WriteMarks<>();

    /**
     * Says which devices are connected: operations on any other fail and the audit skips them.
     *
     * @param available true for a device that is connected
     */
    public void setAvailability(Predicate<DeviceId> available) {
        this.available = available == null ? d -> true : available;
    }

    /**
     * Makes a group ADDED (GROUP_ADDED) only when an {@link #audit} finds it on its switch, as ONOS 2.7 does on
     * its group statistics poll, instead of as soon as the switch took it.
     *
     * @param onAudit true for ONOS's behaviour
     */
    public void setAddedOnAudit(boolean onAudit) {
        this.addedOnAudit = onAudit;
    }

    /** @return groups the audit installed again because their switch had lost them */
    public long reinstalledCount() {
        return reinstalled.get();
    }

    /** @return groups the audit deleted because the store did not know them */
    public long extraneousCount() {
        return extraneous.get();
    }

    /**
     * Compares every connected bridge's group table with the stored groups, as ONOS's group subsystem does on
     * each group statistics poll: a pending group found on the switch becomes ADDED (GROUP_ADDED), an ADDED one
     * found there gives GROUP_UPDATED, one the switch lost is sent again and PENDING_ADD_RETRY until the next
     * poll finds it, a group the store does not know is deleted. The switches are read on the calling thread,
     * beside the programming; the comparison and repair run on the shared executor (groups are repaired before the
     * flows that point to them) and leave out the groups written since the read began. Starts reading every
     * connected bridge's group table.
     *
     * @return the comparison and repair, to run on the shared executor once the tables are read
     */
    public java.util.concurrent.CompletableFuture<Runnable> startAudit() {
        return startAudit(d -> true);
    }

    /**
     * Starts reading some connected bridges' group tables, for the poll ONOS's provider makes of a switch soon
     * after it connects.
     *
     * @param which true for a device to read
     * @return the comparison and repair, to run on the shared executor once the tables are read
     */
    public java.util.concurrent.CompletableFuture<Runnable> startAudit(Predicate<DeviceId> which) {
        long mark = marks.now();
        return ofctl.readAll("dump-groups", bridges, d -> available.test(d) && which.test(d), switchPool)
                .thenApply(read -> () -> compare(read, mark));
    }

    private static final Pattern GROUP_ID = Pattern.compile("group_id=(\\d+)");

    private void compare(Map<DeviceId, Ofctl.Result> dumps, long mark) {
        dumps.forEach((device, dump) -> {
            String bridge = bridges.get(device);
            if (!dump.ok() || !available.test(device)) {
                return;
            }
            java.util.Set<Integer> held = new java.util.HashSet<>();
            Matcher m = GROUP_ID.matcher(dump.output());
            while (m.find()) {
                held.add(Integer.parseUnsignedInt(m.group(1)));
            }
            Map<GroupKey, DefaultGroup> table = groups.getOrDefault(device, Map.of());
            java.util.Set<Integer> known = new java.util.HashSet<>();
            List<SwitchOp> repair = new ArrayList<>();
            List<DefaultGroup> confirmed = new ArrayList<>();
            List<DefaultGroup> seen = new ArrayList<>();
            List<DefaultGroup> retried = new ArrayList<>();
            int missing = 0;
            for (DefaultGroup g : table.values()) {
                known.add(g.id().id());
                boolean there = held.contains(g.id().id());
                Group.GroupState st = g.state();
                boolean pendingAdd = st == Group.GroupState.PENDING_ADD || st == Group.GroupState.PENDING_ADD_RETRY;
                if (there && pendingAdd) {
                    confirmed.add(g);
                } else if (there && st == Group.GroupState.ADDED) {
                    seen.add(g);
                } else if (!there && (pendingAdd || st == Group.GroupState.ADDED)
                        && !marks.writtenSince(device + "/" + g.id().id(), mark)) {
                    // as ONOS's groupMissing, for ADDED and pending groups alike (a switch that came back empty
                    // lost them all); one written since the read began is left to the next poll
                    repair.add(SwitchOp.group(SwitchOp.Kind.ADD_GROUP, g.id().id(), g));
                    retried.add(g);
                    missing++;
                }
            }
            int unknown = 0;
            for (int id : held) {
                if (!known.contains(id) && !marks.writtenSince(device + "/" + id, mark)) {
                    repair.add(SwitchOp.group(SwitchOp.Kind.DELETE_GROUP, id, null));
                    unknown++;
                }
            }
            if (!repair.isEmpty()) {
                Ofctl.Result r = ofctl.bundle(bridge, repair);
                if (r.ok()) {
                    // as ONOS's groupMissing: sent again at once, PENDING_ADD_RETRY until the next poll finds it
                    retried.forEach(g -> g.setState(Group.GroupState.PENDING_ADD_RETRY));
                    reinstalled.addAndGet(missing);
                    extraneous.addAndGet(unknown);
                    log.info("audit {}: re-installed {} missing group(s), deleted {} extraneous", bridge, missing,
                            unknown);
                } else if (repair.size() > 1 && r.exitCode() == 1) {
                    // a group the switch refuses must not keep the others off it: each on its own, as ONOS sends them
                    int sent = 0;
                    for (int i = 0; i < repair.size(); i++) {
                        if (ofctl.bundle(bridge, List.of(repair.get(i))).ok()) {
                            sent++;
                            if (i < retried.size()) {
                                retried.get(i).setState(Group.GroupState.PENDING_ADD_RETRY);
                                reinstalled.incrementAndGet();
                            } else {
                                extraneous.incrementAndGet();
                            }
                        }
                    }
                    log.warn("audit {}: group repair refused as a whole ({}); {} of {} sent on their own", bridge,
                            r.errors(), sent, repair.size());
                } else {
                    log.warn("audit {}: group repair refused: {}", bridge, r.errors());
                }
            }
            for (DefaultGroup g : confirmed) {
                g.setState(Group.GroupState.ADDED);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_ADDED, g));
            }
            // ONOS's store re-puts every group a poll finds on its switch: GROUP_UPDATED for one already ADDED
            for (DefaultGroup g : seen) {
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_UPDATED, g));
            }
        });
        marks.forgetUpTo(mark);
    }

    /**
     * Returns the message of the last failed operation on a group, if any.
     *
     * @param deviceId device
     * @param key      group key
     * @return the switch's or translator's message
     */
    public Optional<String> failure(DeviceId deviceId, GroupKey key) {
        return Optional.ofNullable(failures.getOrDefault(deviceId, Map.of()).get(key));
    }

    @Override
    public void addGroup(GroupDescription desc) {
        executor.execute(() -> {
            int id = desc.givenGroupId() != null ? desc.givenGroupId()
                    : nextId.computeIfAbsent(desc.deviceId(), d -> new AtomicInteger(0x1000)).getAndIncrement();
            DefaultGroup group = new DefaultGroup(GroupId.valueOf(id), desc);
            String error = program(desc.deviceId(), SwitchOp.Kind.ADD_GROUP, id, desc);
            if (error != null && error.contains("OFPGMFC_GROUP_EXISTS")) {
                // ONOS's group store takes GROUP_EXISTS for a pending add as ADDED (when the buckets match): a
                // group left on a switch by an earlier controller is adopted, written with the buckets asked for
                error = program(desc.deviceId(), SwitchOp.Kind.MODIFY_GROUP, id, desc);
            }
            if (error == null) {
                groups.computeIfAbsent(desc.deviceId(), d -> new ConcurrentHashMap<>()).put(desc.appCookie(), group);
                if (addedOnAudit) {
                    group.setState(Group.GroupState.PENDING_ADD);
                } else {
                    group.setState(Group.GroupState.ADDED);
                    listeners.process(new GroupEvent(GroupEvent.Type.GROUP_ADDED, group));
                }
            } else {
                group.setState(Group.GroupState.PENDING_ADD); // what ONOS shows for a group the switch refused
                recordFailure(desc.deviceId(), desc.appCookie(), error);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_ADD_FAILED, group));
            }
        });
    }

    private String program(DeviceId device, SwitchOp.Kind kind, int id, GroupDescription desc) {
        String bridge = bridges.get(device);
        if (bridge == null) {
            return "device " + device + " is not in the lab fabric";
        }
        if (!available.test(device)) {
            return "device " + device + " is not connected";
        }
        Ofctl.Result r = ofctl.bundle(bridge, List.of(SwitchOp.group(kind, id, desc)));
        marks.wrote(device + "/" + id);
        return r.ok() ? null : bridge + " refused the group: " + r.errors();
    }

    private void recordFailure(DeviceId device, GroupKey key, String error) {
        log.warn("group operation failed: {}", error);
        failures.computeIfAbsent(device, d -> new ConcurrentHashMap<>()).put(key, error);
    }

    @Override
    public Group getGroup(DeviceId deviceId, GroupKey appCookie) {
        return groups.getOrDefault(deviceId, Map.of()).get(appCookie);
    }

    private void updateBuckets(DeviceId deviceId, GroupKey oldCookie, GroupKey newCookie,
                               java.util.function.Function<List<GroupBucket>, List<GroupBucket>> change) {
        executor.execute(() -> {
            DefaultGroup old = groups.getOrDefault(deviceId, Map.of()).get(oldCookie);
            if (old == null) {
                recordFailure(deviceId, oldCookie, "no group " + oldCookie + " on " + deviceId);
                return;
            }
            GroupKey key = newCookie != null ? newCookie : oldCookie;
            GroupDescription desc = new DefaultGroupDescription(deviceId, old.type(),
                    new GroupBuckets(change.apply(new ArrayList<>(old.buckets().buckets()))), key,
                    old.id().id(), old.appId());
            DefaultGroup updated = new DefaultGroup(old.id(), desc);
            String error = program(deviceId, SwitchOp.Kind.MODIFY_GROUP, old.id().id(), desc);
            if (error == null) {
                updated.setState(Group.GroupState.ADDED);
                Map<GroupKey, DefaultGroup> table = groups.get(deviceId);
                table.remove(oldCookie);
                table.put(key, updated);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_UPDATED, updated));
            } else {
                recordFailure(deviceId, key, error);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_UPDATE_FAILED, old));
            }
        });
    }

    @Override
    public void addBucketsToGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                  GroupKey newCookie, ApplicationId appId) {
        updateBuckets(deviceId, oldCookie, newCookie, list -> {
            buckets.buckets().stream().filter(b -> !list.contains(b)).forEach(list::add);
            return list;
        });
    }

    @Override
    public void removeBucketsFromGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                       GroupKey newCookie, ApplicationId appId) {
        updateBuckets(deviceId, oldCookie, newCookie, list -> {
            list.removeAll(buckets.buckets());
            return list;
        });
    }

    @Override
    public void setBucketsForGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                   GroupKey newCookie, ApplicationId appId) {
        updateBuckets(deviceId, oldCookie, newCookie, list -> new ArrayList<>(buckets.buckets()));
    }

    @Override
    public void removeGroup(DeviceId deviceId, GroupKey appCookie, ApplicationId appId) {
        executor.execute(() -> {
            DefaultGroup old = groups.getOrDefault(deviceId, Map.of()).get(appCookie);
            if (old == null) {
                return;
            }
            String error = program(deviceId, SwitchOp.Kind.DELETE_GROUP, old.id().id(), null);
            if (error == null) {
                groups.get(deviceId).remove(appCookie);
                old.setState(Group.GroupState.PENDING_DELETE);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_REMOVED, old));
            } else {
                recordFailure(deviceId, appCookie, error);
                listeners.process(new GroupEvent(GroupEvent.Type.GROUP_REMOVE_FAILED, old));
            }
        });
    }

    @Override
    public void purgeGroupEntries(DeviceId deviceId) {
        groups.getOrDefault(deviceId, Map.of()).values()
                .forEach(g -> removeGroup(deviceId, g.appCookie(), g.appId()));
    }

    @Override
    public void purgeGroupEntries(DeviceId deviceId, ApplicationId appId) {
        groups.getOrDefault(deviceId, Map.of()).values().stream()
                .filter(g -> Objects.equals(g.appId(), appId))
                .forEach(g -> removeGroup(deviceId, g.appCookie(), appId));
    }

    @Override
    public void purgeGroupEntries() {
        groups.keySet().forEach(this::purgeGroupEntries);
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
