package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.onosproject.cli.net.HostIdCompleter;

import java.util.ArrayList;
import java.util.List;

/** Creates a group. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-create",
        description = "Creates a P2MP group; endpoints are host ids, MACs or IPs, optionally host#qpn")
public class GroupCreateCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "tenant", description = "Tenant", required = true)
    String tenant = null;

    @Argument(index = 1, name = "name", description = "Group name within the tenant", required = true)
    String name = null;

    @Argument(index = 2, name = "source", description = "Sending host", required = true)
    @Completion(HostIdCompleter.class)
    String source = null;

    @Argument(index = 3, name = "receivers", description = "Receiving hosts (host or host#qpn)",
            required = true, multiValued = true)
    @Completion(HostIdCompleter.class)
    List<String> receivers = new ArrayList<>();

    @Option(name = "-m", aliases = "--mode", description = "Replication mode: AUTO (default), BITMAP, TREE")
    String mode = null;

    @Option(name = "--job", description = "Scheduler job id")
    String job = null;

    @Option(name = "--qpn", description = "RoCE queue pair number of the source")
    Integer qpn = null;

    @Option(name = "--reliability", description = "Reliability: NONE (default), ACK_AGGREGATION")
    String reliability = null;

    @Option(name = "--priority", description = "Priority of the group's switch entries (default 40000)")
    Integer priority = null;

    @Override
    protected void run() {
        access().checkCreate(tenant);
        Endpoint src = qpn == null ? endpoint(source) : Endpoint.of(source, qpn);
        P2mpGroupRequest.Builder b = P2mpGroupRequest.builder()
                .key(GroupKey.of(tenant, name))
                .jobId(job)
                .source(src)
                .addReceivers(endpoints(receivers));
        if (mode != null) {
            b.mode(Enums.parse(ReplicationMode.class, mode, "mode"));
        }
        if (reliability != null) {
            b.reliability(Enums.parse(Reliability.class, reliability, "reliability"));
        }
        if (priority != null) {
            b.priority(priority);
        }
        P2mpGroup g = fresh(groupService.submit(b.build()));
        if (outputJson()) {
            print("%s", jsonForEntity(g, P2mpGroup.class));
            return;
        }
        print("Created group %d (%s) address %s state %s", g.id().value(), g.key(), g.address(), g.state());
    }
}
