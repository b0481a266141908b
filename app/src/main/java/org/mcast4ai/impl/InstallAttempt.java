package org.mcast4ai.impl;

import java.util.LinkedHashSet;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.impl.bitmap.BitmapStamp;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PortCriterion;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * One batch the {@link GroupInstaller} sent for a group, and what to do when the switches answer: a TREE
 * attempt moves the group's branches from what the switches hold to a target plan, a BITMAP attempt moves
 * the source leaf's stamp. Touched only on the group's lane (the fields read by other threads are volatile).
 */
final class InstallAttempt {
    final GroupPlan installed;
    final GroupPlan uncertain;
    final GroupPlan target;
    final GroupState onSuccess;
    final String successReason;
    // a BITMAP attempt moves the source leaf's stamp instead of tree branches
    final boolean bitmap;
    final BitmapStamp stampFrom;
    final BitmapStamp stampTo;
    GroupState expected;
    volatile Set<DeviceId> devices = Set.of();
    // entries on switches that were not connected when the batch was sent: still to be removed
    volatile GroupPlan left = GroupPlan.empty();
    volatile boolean rerun;
    // cancelled on completion so that finished attempts do not stay reachable from the timer queue
    volatile Future<?> timeout;
    // a preparatory step: on success the group is reconciled again to take the next one
    boolean chain;
    // a BITMAP attempt removing an unacknowledged stamp: success clears that record only
    boolean clearsUncertain;
    // when success means FAILED (a group that cannot be served has its old entries removed): the kind
    FailureKind failure;

    InstallAttempt(GroupPlan installed, GroupPlan uncertain, GroupPlan target, GroupState onSuccess,
                   String successReason) {
        this.installed = installed;
        this.uncertain = uncertain;
        this.target = target;
        this.onSuccess = onSuccess;
        this.successReason = successReason;
        this.bitmap = false;
        this.stampFrom = null;
        this.stampTo = null;
        this.expected = withdrawal() ? GroupState.WITHDRAWING : GroupState.INSTALLING;
    }

    InstallAttempt(BitmapStamp from, BitmapStamp to, GroupState expected, GroupState onSuccess, String successReason) {
        this.installed = GroupPlan.empty();
        this.uncertain = GroupPlan.empty();
        this.target = GroupPlan.empty();
        this.onSuccess = onSuccess;
        this.successReason = successReason;
        this.bitmap = true;
        this.stampFrom = from;
        this.stampTo = to;
        this.expected = expected;
    }

    /** @return true if success means the group is WITHDRAWN */
    boolean withdrawal() {
        return onSuccess == GroupState.WITHDRAWN;
    }

    /**
     * @param older entries earlier batches may have left
     * @param newer the target of the batch about to be sent
     * @return what the switches may hold after it: the newer branch where both have one
     */
    static GroupPlan union(GroupPlan older, GroupPlan newer) {
        if (newer.branches().isEmpty()) {
            return older;
        }
        Map<DeviceId, GroupPlan.Branch> branches = new LinkedHashMap<>(older.branches());
        branches.putAll(newer.branches());
        return new GroupPlan(branches, newer.links());
    }

    /**
     * @param endpoints receivers
     * @return {@code ": a, b, ..."} naming at most 8, or empty
     */
    static String describe(Set<Endpoint> endpoints) {
        if (endpoints.isEmpty()) {
            return "";
        }
        String names = endpoints.stream().limit(8).map(Endpoint::toString).collect(Collectors.joining(", "));
        return ": " + names + (endpoints.size() > 8 ? ", ..." : "");
    }

    /**
     * @param ops the failed operations ONOS reports
     * @return the devices they were for
     */
    static Set<DeviceId> devicesOf(FlowRuleOperations ops) {
        Set<DeviceId> out = new LinkedHashSet<>();
        ops.stages().forEach(stage -> stage.forEach(op -> out.add(op.rule().deviceId())));
        return out;
    }

    /**
     * Names the devices and in ports of the rules a switch refused.
     *
     * @param ops the failed operations ONOS reports
     * @return the reason
     */
    static String rejected(FlowRuleOperations ops) {
        Map<DeviceId, Set<String>> byDevice = new LinkedHashMap<>();
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                FlowRule rule = op.rule();
                Criterion in = rule.selector().getCriterion(Criterion.Type.IN_PORT);
                byDevice.computeIfAbsent(rule.deviceId(), d -> new TreeSet<>())
                        .add(in == null ? "?" : ((PortCriterion) in).port().toString());
            }
        }
        if (byDevice.isEmpty()) {
            return "a switch rejected the group's entries (ONOS did not say which)";
        }
        return byDevice.entrySet().stream()
                .map(e -> "switch " + e.getKey() + " rejected the rule for in port(s) " + e.getValue())
                .collect(Collectors.joining("; "));
    }
}
