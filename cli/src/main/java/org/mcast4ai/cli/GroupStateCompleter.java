package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupState;
import org.onosproject.cli.AbstractChoicesCompleter;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Completes group state names. */
@Service
public class GroupStateCompleter extends AbstractChoicesCompleter {

    @Override
    protected List<String> choices() {
        return Arrays.stream(GroupState.values()).map(Enum::name).collect(Collectors.toList());
    }
}
