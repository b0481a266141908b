package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;

/** Re-compiles and re-installs a group against the current fabric. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-recompile",
        description = "Re-compiles and re-installs a P2MP group against the current fabric")
public class GroupRecompileCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        changeable(gid);
        P2mpGroup g = fresh(groupService.recompile(gid));
        if (outputJson()) {
            print("%s", jsonForEntity(g, P2mpGroup.class));
            return;
        }
        print("Group %d re-compiled, state %s", g.id().value(), g.state());
    }
}
