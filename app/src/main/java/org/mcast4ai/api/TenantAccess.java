package org.mcast4ai.api;

import java.util.Collection;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What one caller may do with groups, decided from the roles ONOS's realm (Karaf JAAS) gave it.
 * <ul>
 *   <li>{@code admin}: read and change every tenant's groups;</li>
 *   <li>{@code viewer}: read every tenant's groups, change none (ONOS's read-only operator);</li>
 *   <li>{@code mcast4ai-tenant-<tenant>}: read and change that tenant's groups, one role per tenant. A
 *       tenant user also carries {@code mcast4ai-tenant}, which admits it to this API and nothing else of
 *       ONOS.</li>
 * </ul>
 * A group the caller may not read does not exist for it (a 404, as for an unknown id): ids are not an oracle
 * for other tenants' groups.
 */
public final class TenantAccess {
    /** ONOS's administrator role. */
    public static final String ADMIN = "admin";
    /** ONOS's read-only role. */
    public static final String VIEWER = "viewer";
    /** The role that admits a tenant user to the mcast4ai API. */
    public static final String TENANT_USER = "mcast4ai-tenant";
    /** Prefix of the per-tenant roles: {@code mcast4ai-tenant-t1} is tenant {@code t1}. */
    public static final String TENANT_ROLE_PREFIX = TENANT_USER + "-";

    private static final TenantAccess UNRESTRICTED = new TenantAccess("(local)", ADMIN::equals);

    private final String user;
    private final Predicate<String> inRole;

    private TenantAccess(String user, Predicate<String> inRole) {
        this.user = user == null ? "(anonymous)" : user;
        this.inRole = inRole;
    }

    /**
     * @param user   the caller's name, for messages
     * @param inRole whether the caller holds a role (a JAX-RS {@code SecurityContext::isUserInRole})
     * @return the caller's access
     */
    public static TenantAccess of(String user, Predicate<String> inRole) {
        return new TenantAccess(user, inRole);
    }

    /**
     * @param user  the caller's name
     * @param roles the caller's roles
     * @return the caller's access
     */
    public static TenantAccess of(String user, Collection<String> roles) {
        Set<String> held = Set.copyOf(roles);
        return new TenantAccess(user, held::contains);
    }

    /**
     * @return the access of a caller with no user (code inside ONOS, a console without a login): an
     *         administrator's
     */
    public static TenantAccess unrestricted() {
        return UNRESTRICTED;
    }

    /**
     * @param tenant a tenant
     * @return the role that grants it
     */
    public static String roleFor(String tenant) {
        return TENANT_ROLE_PREFIX + tenant;
    }

    /** @return the caller's name */
    public String user() {
        return user;
    }

    /** @return whether the caller is an administrator */
    public boolean isAdmin() {
        return inRole.test(ADMIN);
    }

    /** @return whether the caller may read every tenant's groups (and the fabric-wide counters) */
    public boolean readsAll() {
        return isAdmin() || inRole.test(VIEWER);
    }

    /**
     * @param tenant a tenant
     * @return whether the caller may read the tenant's groups
     */
    public boolean mayRead(String tenant) {
        return readsAll() || tenant != null && inRole.test(roleFor(tenant));
    }

    /**
     * @param tenant a tenant
     * @return whether the caller may create, change and withdraw the tenant's groups
     */
    public boolean mayChange(String tenant) {
        return isAdmin() || tenant != null && inRole.test(roleFor(tenant));
    }

    /**
     * @param group a group
     * @return the group, if the caller may read it
     * @throws GroupException NOT_FOUND if it may not (the same answer as for an unknown id)
     */
    public P2mpGroup readable(P2mpGroup group) {
        if (!mayRead(group.key().tenant())) {
            throw GroupException.notFound(group.id());
        }
        return group;
    }

    /**
     * @param group a group
     * @return the group, if the caller may change it
     * @throws GroupException NOT_FOUND if the caller may not read it, FORBIDDEN if it may only read it
     */
    public P2mpGroup changeable(P2mpGroup group) {
        readable(group);
        if (!mayChange(group.key().tenant())) {
            throw GroupException.forbidden(user + " may read but not change tenant " + group.key().tenant()
                    + "'s groups: changing needs the role " + ADMIN + " or " + roleFor(group.key().tenant()));
        }
        return group;
    }

    /**
     * @param tenant the tenant a new group names
     * @throws GroupException FORBIDDEN if the caller may not create groups for it
     */
    public void checkCreate(String tenant) {
        if (!mayChange(tenant)) {
            throw GroupException.forbidden("tenant: " + user + " may not create groups for tenant '"
                    + Printable.of(tenant) + "': that needs the role " + ADMIN + " or " + roleFor(tenant));
        }
    }

    /**
     * @throws GroupException FORBIDDEN unless the caller reads every tenant
     */
    public void checkReadsAll() {
        if (!readsAll()) {
            throw GroupException.forbidden(user + " may not read fabric-wide figures: that needs the role "
                    + ADMIN + " or " + VIEWER);
        }
    }

    @Override
    public String toString() {
        return "TenantAccess{" + user + (isAdmin() ? ", admin" : readsAll() ? ", viewer" : "") + "}";
    }
}
