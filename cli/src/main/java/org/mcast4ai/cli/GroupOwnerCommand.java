package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupOwner;
import org.mcast4ai.api.P2mpGroupId;

/** Shows which instance of the cluster programs a group. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-owner",
        description = "Shows the instance that programs a P2MP group (the leader of its work partition)")
public class GroupOwnerCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        GroupOwner o = groupService.owner(gid);
        String instance = o.instance() == null ? "none yet" : o.instance();
        if (outputJson()) {
            print("{\"group\":%d,\"owner\":%s,\"here\":%s}", gid.value(),
                    o.instance() == null ? "null" : "\"" + o.instance() + "\"", o.here());
            return;
        }
        print("group %d: owner %s (%s)", gid.value(), instance, o.here() ? "this instance" : "another instance");
    }
}
