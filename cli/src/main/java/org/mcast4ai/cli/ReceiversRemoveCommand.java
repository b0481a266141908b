package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.onosproject.cli.net.HostIdCompleter;

import java.util.ArrayList;
import java.util.List;

/** Removes receivers from a group; a host given without a QPN stands for the group's receivers on it. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-remove-receivers", description = "Removes receivers from a P2MP group")
public class ReceiversRemoveCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Argument(index = 1, name = "receivers", description = "Receiving hosts (host or host#qpn)",
            required = true, multiValued = true)
    @Completion(HostIdCompleter.class)
    List<String> receivers = new ArrayList<>();

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        P2mpGroup current = groupService.getGroup(gid).orElseThrow(() -> GroupException.notFound(gid));
        P2mpGroup g = groupService.removeReceivers(gid, current.receiversNamed(endpoints(receivers)));
        if (outputJson()) {
            print("%s", jsonForEntity(g, P2mpGroup.class));
            return;
        }
        print("Group %d now has %d receivers, state %s", g.id().value(), g.request().receivers().size(), g.state());
    }

}
