package org.mcast4ai.impl.lifecycle;

import com.google.common.collect.ImmutableList;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.FailureKind;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.impl.program.Move;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * One batch the reconcile loop sent for a group: the moves of each kind of entry, the state success leads to,
 * and the devices' answers as they come (one answer per programmer). Touched on the group's lane, except the
 * answers, which arrive on ONOS's threads (synchronized).
 */
public final class InstallAttempt {
    public final Map<String, List<Move>> moves;
    public final List<ConnectPoint[]> links;
    public final GroupState expected;
    public final GroupState onSuccess;
    public final String successReason;
    // when success means FAILED (a group that cannot be served has its entries removed): the kind
    public final FailureKind failure;
    // a preparatory step (entries of another mode go first): on success the group is reconciled again
    public final boolean chain;
    volatile Set<DeviceId> devices = Set.of();
    public volatile boolean rerun;
    // cancelled on completion so that finished attempts do not stay reachable from the timer queue
    public volatile Future<?> timeout;

    private int pending;
    // replaced, never changed: most batches have one programmer, whose answer is kept as it is
    private Set<DeviceId> acked = Set.of();
    private final Map<DeviceId, String> rejected = new LinkedHashMap<>(0);

    public InstallAttempt(Map<String, List<Move>> moves, List<ConnectPoint[]> links, GroupState expected,
                          GroupState onSuccess, String successReason, FailureKind failure, boolean chain) {
        this.moves = moves;
        this.links = ImmutableList.copyOf(links);
        this.expected = expected;
        this.onSuccess = onSuccess;
        this.successReason = successReason;
        this.failure = failure;
        this.chain = chain;
    }

    /** @return true if success means the group is WITHDRAWN */
    public boolean withdrawal() {
        return onSuccess == GroupState.WITHDRAWN;
    }

    /** @param n how many programmers were given moves and will answer */
    public synchronized void expect(int n) {
        pending = n;
    }

    /**
     * Records one programmer's answer.
     *
     * @param ok      devices that acknowledged
     * @param refused devices that refused, with the reason
     * @return true when it was the last answer expected
     */
    public synchronized boolean answer(Set<DeviceId> ok, Map<DeviceId, String> refused) {
        if (acked.isEmpty()) {
            acked = ok;
        } else if (!ok.isEmpty()) {
            Set<DeviceId> all = new LinkedHashSet<>(acked);
            all.addAll(ok);
            acked = all;
        }
        rejected.putAll(refused);
        return --pending == 0;
    }

    /** @return devices that acknowledged all their writes so far */
    public synchronized Set<DeviceId> acked() {
        return Collections.unmodifiableSet(acked);
    }

    /** @return devices that refused, with the reason */
    public synchronized Map<DeviceId, String> rejected() {
        return rejected.isEmpty() ? Map.of() : new LinkedHashMap<>(rejected);
    }

    /**
     * @param endpoints receivers
     * @return {@code ": a, b, ..."} naming at most 8, or empty
     */
    public static String describe(Set<Endpoint> endpoints) {
        if (endpoints.isEmpty()) {
            return "";
        }
        String names = endpoints.stream().limit(8).map(Endpoint::toString).collect(Collectors.joining(", "));
        return ": " + names + (endpoints.size() > 8 ? ", ..." : "");
    }
}
