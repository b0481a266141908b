package org.mcast4ai.api;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TenantAccessTest {

    @Test
    void rolesGrantWhatTheyName() {
        TenantAccess admin = TenantAccess.of("onos", Set.of("admin"));
        TenantAccess viewer = TenantAccess.of("vera", Set.of("viewer"));
        TenantAccess alice = TenantAccess.of("alice", List.of("mcast4ai-tenant", "mcast4ai-tenant-t1",
                "mcast4ai-tenant-t3"));
        TenantAccess nobody = TenantAccess.of(null, Set.of());
        for (String t : List.of("t1", "t2", "t3")) {
            assertTrue(admin.mayRead(t) && admin.mayChange(t));
            assertTrue(viewer.mayRead(t));
            assertFalse(viewer.mayChange(t));
            assertEquals(!t.equals("t2"), alice.mayRead(t), t);
            assertEquals(!t.equals("t2"), alice.mayChange(t), t);
            assertFalse(nobody.mayRead(t) || nobody.mayChange(t));
        }
        assertFalse(alice.mayRead(null));
        assertFalse(alice.readsAll());
        assertTrue(viewer.readsAll());
        assertTrue(TenantAccess.unrestricted().mayChange("any"));
    }

    @Test
    void aTenantNamedLikeAPrefixGainsNothing() {
        // tenant "t1" must not be granted by a role for tenant "t" or "t10"
        TenantAccess a = TenantAccess.of("a", Set.of("mcast4ai-tenant-t", "mcast4ai-tenant-t10"));
        assertFalse(a.mayRead("t1"));
        assertFalse(a.mayRead(""));
    }

    @Test
    void refusalsSayWhichRoleIsMissing() {
        TenantAccess viewer = TenantAccess.of("vera", Set.of("viewer"));
        GroupException e = assertThrows(GroupException.class, () -> viewer.checkCreate("t1"));
        assertEquals(GroupException.Kind.FORBIDDEN, e.kind());
        assertTrue(e.getMessage().contains("mcast4ai-tenant-t1"), e.getMessage());
        GroupException counters = assertThrows(GroupException.class,
                () -> TenantAccess.of("alice", Set.of("mcast4ai-tenant-t1")).checkReadsAll());
        assertEquals(GroupException.Kind.FORBIDDEN, counters.kind());
    }
}
