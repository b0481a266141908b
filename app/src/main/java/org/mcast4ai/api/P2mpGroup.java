package org.mcast4ai.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A group as the app holds it: the request, what the app assigned (id, address, effective mode) and where
 * it is in its lifecycle. Immutable; every change makes a new value with a higher {@link #version()}, so
 * it can live in a distributed map.
 */
public final class P2mpGroup {
    /** How many state changes the history keeps (oldest dropped first). */
    public static final int HISTORY_LIMIT = 32;

    private final P2mpGroupId id;
    private final P2mpGroupRequest request;
    private final IpAddress address;
    private final ReplicationMode effectiveMode;
    private final String modeReason;
    private final ImmutableSet<Endpoint> unreachable;
    private final ImmutableList<StateChange> history;
    private final long version;
    private final VirtualPeer peer; // ACK_AGGREGATION groups only

    private P2mpGroup(P2mpGroupId id, P2mpGroupRequest request, IpAddress address, ReplicationMode effectiveMode,
                      String modeReason, Set<Endpoint> unreachable, List<StateChange> history, long version,
                      VirtualPeer peer) {
        this.id = Objects.requireNonNull(id);
        this.request = Objects.requireNonNull(request);
        this.address = Objects.requireNonNull(address);
        this.effectiveMode = Objects.requireNonNull(effectiveMode);
        this.modeReason = modeReason == null ? "" : modeReason;
        this.unreachable = ImmutableSet.copyOf(unreachable);
        this.history = ImmutableList.copyOf(history);
        this.version = version;
        this.peer = peer;
        if (this.history.isEmpty()) {
            throw new IllegalArgumentException("a group has at least one state");
        }
    }

    /**
     * A newly submitted group.
     *
     * @param id         assigned id
     * @param request    the request
     * @param address    assigned group address
     * @param timeMillis submission time
     * @return the group in state SUBMITTED
     */
    public static P2mpGroup submitted(P2mpGroupId id, P2mpGroupRequest request, IpAddress address,
                                      long timeMillis) {
        return submitted(id, request, address, timeMillis, null);
    }

    /**
     * A newly submitted group with its virtual peer.
     *
     * @param id         assigned id
     * @param request    the request
     * @param address    assigned group address
     * @param timeMillis submission time
     * @param peer       the virtual peer of an ACK_AGGREGATION group, null for any other
     * @return the group in state SUBMITTED
     */
    public static P2mpGroup submitted(P2mpGroupId id, P2mpGroupRequest request, IpAddress address,
                                      long timeMillis, VirtualPeer peer) {
        return new P2mpGroup(id, request, address, request.mode(), "", ImmutableSet.of(),
                ImmutableList.of(new StateChange(GroupState.SUBMITTED, timeMillis, "")), 1, peer);
    }

    /** @return the virtual peer of an ACK_AGGREGATION group, empty for any other */
    public java.util.Optional<VirtualPeer> peer() {
        return java.util.Optional.ofNullable(peer);
    }

    /**
     * @param next the group's virtual peer, changed (stalled receivers)
     * @return a copy
     */
    public P2mpGroup withPeer(VirtualPeer next) {
        return new P2mpGroup(id, request, address, effectiveMode, modeReason, unreachable, history, version + 1,
                next);
    }

    /** @return the id */
    public P2mpGroupId id() {
        return id;
    }

    /** @return the key */
    public GroupKey key() {
        return request.key();
    }

    /** @return the request (current receivers included) */
    public P2mpGroupRequest request() {
        return request;
    }

    /** @return the address the sender targets */
    public IpAddress address() {
        return address;
    }

    /** @return the mode in force (never AUTO once compiled) */
    public ReplicationMode effectiveMode() {
        return effectiveMode;
    }

    /** @return why the effective mode was chosen (for AUTO) */
    public String modeReason() {
        return modeReason;
    }

    /**
     * Resolves receivers a caller names for removal: one named without a QPN stands for every receiver of the
     * group on that host; the others are returned as given (for the service to refuse if not members).
     *
     * @param given receivers as the caller named them
     * @return the group's receivers they name
     */
    public Set<Endpoint> receiversNamed(Set<Endpoint> given) {
        Set<Endpoint> out = new java.util.LinkedHashSet<>();
        for (Endpoint e : given) {
            boolean matched = false;
            if (e.qpn().isEmpty()) {
                for (Endpoint r : request.receivers()) {
                    if (r.host().equals(e.host())) {
                        out.add(r);
                        matched = true;
                    }
                }
            }
            if (!matched) {
                out.add(e);
            }
        }
        return out;
    }

    /** @return receivers the current fabric cannot reach */
    public Set<Endpoint> unreachable() {
        return unreachable;
    }

    /** @return the current state */
    public GroupState state() {
        return history.get(history.size() - 1).state();
    }

    /** @return why the current state was entered */
    public String reason() {
        return history.get(history.size() - 1).reason();
    }

    /** @return the kind of failure of a FAILED group, null in every other state */
    public FailureKind failure() {
        return history.get(history.size() - 1).failure();
    }

    /** @return state changes, oldest first, at most {@link #HISTORY_LIMIT} */
    public List<StateChange> history() {
        return history;
    }

    /** @return a counter that grows with every change of this group */
    public long version() {
        return version;
    }

    /**
     * @param state      new state
     * @param timeMillis when
     * @param reason     why
     * @return a copy in the new state
     */
    public P2mpGroup withState(GroupState state, long timeMillis, String reason) {
        return withState(state, timeMillis, reason, null);
    }

    /**
     * The group FAILED, for a reason of a given kind.
     *
     * @param failure    the kind of failure
     * @param timeMillis when
     * @param reason     why, in words
     * @return the failed group (next version)
     */
    public P2mpGroup withFailure(FailureKind failure, long timeMillis, String reason) {
        return withState(GroupState.FAILED, timeMillis, reason, failure);
    }

    private P2mpGroup withState(GroupState state, long timeMillis, String reason, FailureKind failure) {
        ImmutableList.Builder<StateChange> h = ImmutableList.builder();
        int skip = Math.max(0, history.size() + 1 - HISTORY_LIMIT);
        h.addAll(history.subList(skip, history.size()));
        h.add(new StateChange(state, timeMillis, reason, failure));
        return new P2mpGroup(id, request, address, effectiveMode, modeReason, unreachable, h.build(), version + 1,
                peer);
    }

    /**
     * @param newRequest the request with changed receivers
     * @return a copy
     */
    public P2mpGroup withRequest(P2mpGroupRequest newRequest) {
        // receivers keep their slots at the virtual peer; new ones get free slots
        VirtualPeer nextPeer = peer == null ? null : peer.withReceivers(newRequest.receivers());
        return new P2mpGroup(id, newRequest, address, effectiveMode, modeReason, unreachable, history, version + 1,
                nextPeer);
    }

    /**
     * @param mode   mode in force
     * @param reason why
     * @return a copy
     */
    public P2mpGroup withEffectiveMode(ReplicationMode mode, String reason) {
        return new P2mpGroup(id, request, address, mode, reason, unreachable, history, version + 1, peer);
    }

    /**
     * @param receivers receivers the fabric cannot reach
     * @return a copy
     */
    public P2mpGroup withUnreachable(Set<Endpoint> receivers) {
        return new P2mpGroup(id, request, address, effectiveMode, modeReason, receivers, history, version + 1,
                peer);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof P2mpGroup)) {
            return false;
        }
        P2mpGroup g = (P2mpGroup) o;
        return id.equals(g.id) && version == g.version && request.equals(g.request) && address.equals(g.address)
                && effectiveMode == g.effectiveMode && modeReason.equals(g.modeReason)
                && unreachable.equals(g.unreachable) && history.equals(g.history)
                && java.util.Objects.equals(peer, g.peer);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, version);
    }

    @Override
    public String toString() {
        return "P2mpGroup{" + id + " " + key() + " " + address + " " + state() + " v" + version + "}";
    }
}
