package org.mcast4ai.cli;

import org.apache.karaf.jaas.boot.principal.RolePrincipal;
import org.apache.karaf.jaas.boot.principal.UserPrincipal;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupState;

import javax.security.auth.Subject;
import java.security.Principal;
import java.security.PrivilegedExceptionAction;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commands run as a Karaf login's subject follow the same tenant rules as REST. */
class TenantCommandsTest extends CommandTestBase {

    @SuppressWarnings("removal")
    private Output as(String user, List<String> roles, Mcast4aiCommand command) throws Exception {
        Set<Principal> principals = new HashSet<>();
        principals.add(new UserPrincipal(user));
        roles.forEach(r -> principals.add(new RolePrincipal(r)));
        Subject subject = new Subject(true, principals, Set.of(), Set.of());
        return Subject.doAs(subject, (PrivilegedExceptionAction<Output>) () -> run(command));
    }

    private static final List<String> BOB = List.of("mcast4ai-tenant", "mcast4ai-tenant-t2");

    @Test
    void anotherTenantsGroupDoesNotExistForTheShellUser() throws Exception {
        long id = create("t1", "g1", "10.0.0.2");
        String sid = Long.toString(id);

        GroupShowCommand show = new GroupShowCommand();
        show.id = sid;
        assertOneErrorLine(as("bob", BOB, show), "no group " + id);
        GroupWithdrawCommand withdraw = new GroupWithdrawCommand();
        withdraw.id = sid;
        assertOneErrorLine(as("bob", BOB, withdraw), "no group " + id);
        ReceiversAddCommand add = new ReceiversAddCommand();
        add.id = sid;
        add.receivers = List.of("10.0.0.9");
        assertOneErrorLine(as("bob", BOB, add), "no group " + id);
        GroupsListCommand list = new GroupsListCommand();
        assertEquals("", as("bob", BOB, list).out);
        GroupCreateCommand create = new GroupCreateCommand();
        create.tenant = "t1";
        create.name = "g2";
        create.source = "10.0.0.1";
        create.receivers = List.of("10.0.0.3");
        assertOneErrorLine(as("bob", BOB, create), "tenant", "mcast4ai-tenant-t1");
        assertOneErrorLine(as("bob", BOB, new ReconcileCommand()), "bob", "viewer");
        GroupOwnerCommand owner = new GroupOwnerCommand();
        owner.id = sid;
        assertOneErrorLine(as("bob", BOB, owner), "no group " + id);

        assertEquals(1, groups.groupCount());
        assertEquals(GroupState.INSTALLED, stored(id).state());
        assertEquals(1, stored(id).request().receivers().size());
    }

    @Test
    void aViewerReadsAndAnAdministratorChanges() throws Exception {
        long id = create("t1", "g1", "10.0.0.2");
        GroupsListCommand list = new GroupsListCommand();
        assertTrue(as("vera", List.of("viewer"), list).out.contains("t1"));
        GroupWithdrawCommand withdraw = new GroupWithdrawCommand();
        withdraw.id = Long.toString(id);
        assertOneErrorLine(as("vera", List.of("viewer"), withdraw), "vera", "may read but not change");
        assertEquals(GroupState.INSTALLED, stored(id).state());
        Output done = as("karaf", List.of("admin", "viewer"), withdraw);
        assertFalse(done.out.isEmpty(), done.err);
        assertEquals(GroupState.WITHDRAWN, stored(id).state());
    }

    @Test
    void theTenantUserChangesItsOwnGroup() throws Exception {
        long id = create("t2", "g1", "10.0.0.2");
        ReceiversAddCommand add = new ReceiversAddCommand();
        add.id = Long.toString(id);
        add.receivers = List.of("10.0.0.9");
        Output o = as("bob", BOB, add);
        assertEquals("", o.err);
        assertEquals(2, stored(id).request().receivers().size());
    }
}
