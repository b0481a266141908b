package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Completion;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.onosproject.cli.net.HostIdCompleter;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A command that changes a group's receivers: {@code <id> <host or host#qpn>...}, then prints the group. */
public abstract class ReceiversCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Argument(index = 1, name = "receivers", description = "Receiving hosts (host or host#qpn)",
            required = true, multiValued = true)
    @Completion(HostIdCompleter.class)
    List<String> receivers = new ArrayList<>();

    /**
     * Applies the change.
     *
     * @param group     the group
     * @param endpoints the receivers named
     * @return the group after the change
     */
    protected abstract P2mpGroup change(P2mpGroupId group, Set<Endpoint> endpoints);

    @Override
    protected void run() {
        P2mpGroup g = fresh(change(P2mpGroupId.parse(id), endpoints(receivers)));
        if (outputJson()) {
            print("%s", jsonForEntity(g, P2mpGroup.class));
            return;
        }
        print("Group %d now has %d receivers, state %s", g.id().value(), g.request().receivers().size(), g.state());
    }
}
