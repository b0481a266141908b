package org.mcast4ai.impl.bitmap;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupService;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The egress groups one static sync of a switch sends or relies on, and what became of them.
 *
 * <p>A new group is not waited for: ONOS sends its group-mod at once and reports it ADDED only on its next group
 * poll; the rules that name it follow it down the switch's connection, and their acknowledgement proves it is
 * there. Nor is one ONOS holds as pending with the right buckets (sent before the rules that follow). A group whose
 * buckets are set again is waited for until ONOS reports it updated. A refusal of any of them is kept, so that the
 * sync can name it as the reason when the switch refuses the rules too.
 */
final class EgressGroups {
    private final GroupService groupService;
    /** Completes when the groups waited for are updated (or fails when one is refused). */
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** Fails when the switch refuses one of the groups; never completes normally. */
    final CompletableFuture<Void> refused = new CompletableFuture<>();
    private final Set<String> awaited = Collections.synchronizedSet(new LinkedHashSet<>());
    private final Set<String> watched = Collections.synchronizedSet(new LinkedHashSet<>());
    private volatile boolean listening;
    private final GroupListener listener = event -> {
        Group g = event.subject();
        String key = g.deviceId() + "|" + g.appCookie();
        if (!watched.contains(key)) {
            return;
        }
        switch (event.type()) {
            case GROUP_ADDED:
            case GROUP_UPDATED:
                if (awaited.remove(key) && awaited.isEmpty()) {
                    ready.complete(null);
                }
                break;
            case GROUP_ADD_FAILED:
            case GROUP_UPDATE_FAILED:
                IllegalStateException e = new IllegalStateException("switch " + g.deviceId()
                        + " refused egress group 0x" + Integer.toHexString(g.id().id()));
                refused.completeExceptionally(e);
                ready.completeExceptionally(e);
                break;
            default:
                break;
        }
    };

    private EgressGroups(GroupService groupService) {
        this.groupService = groupService;
    }

    /**
     * Sends the groups a switch lacks or holds with other buckets, and watches them.
     *
     * @param groupService ONOS's group service
     * @param appId        the application the groups belong to
     * @param groups       the switch's egress groups that may need sending
     * @param sent         filled with the keys of the groups sent (the others are left to ONOS's store)
     * @return the watch; {@link #close} it once the sync is answered
     */
    static EgressGroups send(GroupService groupService, ApplicationId appId, List<GroupDescription> groups,
                             Set<String> sent) {
        EgressGroups w = new EgressGroups(groupService);
        if (groups.isEmpty()) {
            w.ready.complete(null);
            return w;
        }
        groups.forEach(g -> {
            w.watched.add(OpenFlowBitmapProgrammer.groupKey(g));
            w.awaited.add(OpenFlowBitmapProgrammer.groupKey(g));
        });
        w.listening = true;
        groupService.addListener(w.listener);
        for (GroupDescription g : groups) {
            String key = OpenFlowBitmapProgrammer.groupKey(g);
            Group existing = groupService.getGroup(g.deviceId(), g.appCookie());
            if (existing == null) {
                sent.add(key);
                groupService.addGroup(g);
                w.awaited.remove(key);
            } else if (!existing.buckets().equals(g.buckets())) {
                sent.add(key);
                groupService.setBucketsForGroup(g.deviceId(), g.appCookie(), g.buckets(), g.appCookie(), appId);
            } else if (existing.state() == Group.GroupState.ADDED || existing.state() == Group.GroupState.PENDING_ADD
                    || existing.state() == Group.GroupState.PENDING_ADD_RETRY) {
                w.awaited.remove(key);
            }
        }
        if (w.awaited.isEmpty()) {
            w.ready.complete(null);
        }
        return w;
    }

    /** Stops watching. */
    void close() {
        if (listening) {
            groupService.removeListener(listener);
        }
    }
}
