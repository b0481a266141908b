package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.ReplicationMode;
import org.mcast4ai.api.StateChange;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.Comparator;
import java.util.Map;

/** Shows one group: its fields, its state history, the installed tree per device and, for BITMAP, its bit map. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-group",
        description = "Shows a P2MP group: fields, state history, installed tree per device, bit map")
public class GroupShowCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        P2mpGroup g = readable(gid);
        GroupPlan plan = groupService.getInstalledPlan(gid);
        if (outputJson()) {
            ObjectNode n = jsonForEntity(g, P2mpGroup.class);
            n.set("plan", jsonForEntity(plan, GroupPlan.class));
            if (g.effectiveMode() == ReplicationMode.BITMAP && g.state().isLive()) {
                n.set("bitmap", jsonForEntity(groupService.getBitmap(gid), GroupBitmap.class));
            }
            print("%s", n);
            return;
        }
        print("id=%d key=%s job=%s version=%d", g.id().value(), g.key(),
                g.request().jobId().isEmpty() ? "-" : g.request().jobId(), g.version());
        print("address=%s mode=%s reliability=%s priority=%d", g.address(), Format.mode(g),
                g.request().reliability(), g.request().priority());
        if (!g.modeReason().isEmpty()) {
            print("mode reason: %s", g.modeReason());
        }
        print("state=%s%s%s", g.state(), g.failure() == null ? "" : " " + g.failure(),
                g.reason().isEmpty() ? "" : " (" + g.reason() + ")");
        print("source: %s", g.request().source());
        print("receivers (%d): %s", g.request().receivers().size(), Format.endpoints(g.request().receivers()));
        if (!g.unreachable().isEmpty()) {
            print("unreachable (%d): %s", g.unreachable().size(), Format.endpoints(g.unreachable()));
        }
        print("history:");
        for (StateChange c : g.history()) {
            print("  %s %s%s", Format.time(c.timeMillis()), c.state(), c.reason().isEmpty() ? "" : " " + c.reason());
        }
        printPlan(plan);
        if (g.effectiveMode() == ReplicationMode.BITMAP && g.state().isLive()) {
            try {
                GroupBitmapCommand.printBitmap(this, groupService.getBitmap(gid));
            } catch (GroupException e) {
                print("bitmap: %s", e.getMessage());
            }
        }
    }

    private void printPlan(GroupPlan plan) {
        if (plan.branches().isEmpty()) {
            print("tree: nothing installed");
            return;
        }
        print("tree (%d devices, %d links):", plan.branches().size(), plan.links().size());
        plan.branches().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(DeviceId::toString)))
                .forEach(e -> print("  %s in=%s out=%s", e.getKey(), e.getValue().inPort(),
                        e.getValue().outPorts()));
        for (ConnectPoint[] l : plan.links()) {
            print("  link %s -> %s", l[0], l[1]);
        }
    }
}
