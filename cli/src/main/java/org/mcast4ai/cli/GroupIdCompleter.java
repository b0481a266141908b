package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.P2mpGroupService;
import org.mcast4ai.api.TenantAccess;
import org.onosproject.cli.AbstractChoicesCompleter;

import java.util.List;
import java.util.stream.Collectors;

/** Completes the ids of the groups the shell's user may read. */
@Service
public class GroupIdCompleter extends AbstractChoicesCompleter {

    /** The group service. */
    @Reference
    protected P2mpGroupService groupService;

    @Override
    protected List<String> choices() {
        TenantAccess access = ShellCaller.current();
        return groupService.getGroups().stream().filter(g -> access.mayRead(g.key().tenant()))
                .map(g -> g.id().toString()).collect(Collectors.toList());
    }
}
