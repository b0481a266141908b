package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupTree;
import org.mcast4ai.api.P2mpGroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Shows where a group's packets go now: per device its role, in port and out ports (and for BITMAP the part of
 * the stamp or header it acts on), then the path to each receiver, the receivers not reached and any stray.
 */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-tree",
        description = "Shows a P2MP group's tree: per device role, in port, out ports or the header part it serves, "
                + "and the path to each receiver")
public class GroupTreeCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        GroupTree t = groupService.tree(gid);
        if (outputJson()) {
            print("%s", jsonForEntity(t, GroupTree.class));
            return;
        }
        print("group %d (%s): %s", gid.value(), t.mode(), t.carrier());
        for (GroupTree.Hop h : t.hops()) {
            String roles = h.roles().stream().map(Enum::name).collect(Collectors.joining(","));
            String outs = h.outPorts().stream().map(PortNumber::toString).collect(Collectors.joining(","));
            print("  %s %s in=%s out=%s%s", h.device(), roles, h.inPort(), outs,
                    h.serves().isEmpty() ? "" : " serves: " + h.serves());
        }
        print("paths: %d of %d receivers", t.paths().size(), t.paths().size() + t.unreachable().size());
        for (Map.Entry<Endpoint, List<DeviceId>> p : t.paths().entrySet()) {
            print("  %s: %s", p.getKey().host(), p.getValue().stream().map(DeviceId::toString)
                    .collect(Collectors.joining(" > ")));
        }
        if (!t.unreachable().isEmpty()) {
            print("unreachable: %s", t.unreachable().stream().map(Endpoint::host).collect(Collectors.joining(", ")));
        }
        if (!t.strays().isEmpty()) {
            print("strays: %s", String.join(", ", t.strays()));
        }
    }
}
