package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.TenantAccess;

import java.util.List;
import java.util.stream.Collectors;

/** Lists groups, optionally filtered by tenant, job and state. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-groups", description = "Lists P2MP groups")
public class GroupsListCommand extends Mcast4aiCommand {

    @Option(name = "-t", aliases = "--tenant", description = "Only groups of this tenant")
    String tenant = null;

    @Option(name = "--job", description = "Only groups of this scheduler job id")
    String job = null;

    @Option(name = "-s", aliases = "--state", description = "Only groups in this state")
    @Completion(GroupStateCompleter.class)
    String state = null;

    @Override
    protected void run() {
        GroupState st = state == null ? null : Enums.parse(GroupState.class, state, "state");
        TenantAccess access = access();
        if (tenant != null && !access.mayRead(tenant)) {
            throw GroupException.forbidden("tenant: " + access.user() + " may not read tenant '" + tenant + "'");
        }
        List<P2mpGroup> groups = groupService.getGroups(tenant, job, st).stream()
                .filter(g -> access.mayRead(g.key().tenant())).collect(Collectors.toList());
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            groups.forEach(g -> array.add(jsonForEntity(g, P2mpGroup.class)));
            print("%s", array);
            return;
        }
        groups.forEach(g -> print("%s", Format.summary(g)));
    }
}
