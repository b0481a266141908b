package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;

import java.util.Set;

/** Adds receivers to a group. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-add-receivers", description = "Adds receivers to a P2MP group")
public class ReceiversAddCommand extends ReceiversCommand {

    @Override
    protected P2mpGroup change(P2mpGroupId group, Set<Endpoint> endpoints) {
        changeable(group);
        return groupService.addReceivers(group, endpoints);
    }
}
