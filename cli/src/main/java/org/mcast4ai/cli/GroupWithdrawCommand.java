package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;

/** Withdraws a group, and with --purge also removes its record once withdrawn. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-withdraw",
        description = "Withdraws a P2MP group (removes its switch entries); --purge also removes the record")
public class GroupWithdrawCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Option(name = "--purge", description = "Also remove the record (frees the name and address)")
    boolean purge = false;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        P2mpGroup g = changeable(gid);
        if (!purge || g.state() != GroupState.WITHDRAWN) {
            g = fresh(groupService.withdraw(gid));
        }
        boolean purged = purge && g.state() == GroupState.WITHDRAWN;
        if (purged) {
            groupService.purge(gid);
        }
        if (outputJson()) {
            print("%s", mapper().createObjectNode().put("purged", purged).set("group",
                    jsonForEntity(g, P2mpGroup.class)));
            return;
        }
        if (purged) {
            print("Group %d withdrawn and purged", gid.value());
        } else if (purge) {
            print("Group %d is %s; purge it again once it is WITHDRAWN", gid.value(), g.state());
        } else {
            print("Group %d is %s", gid.value(), g.state());
        }
    }
}
