package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;

import java.util.Set;

/** Removes receivers from a group; a host given without a QPN stands for the group's receivers on it. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-remove-receivers", description = "Removes receivers from a P2MP group")
public class ReceiversRemoveCommand extends ReceiversCommand {

    @Override
    protected P2mpGroup change(P2mpGroupId group, Set<Endpoint> endpoints) {
        P2mpGroup current = changeable(group);
        return groupService.removeReceivers(group, current.receiversNamed(endpoints));
    }
}
