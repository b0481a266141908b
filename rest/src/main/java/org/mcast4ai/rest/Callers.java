package org.mcast4ai.rest;

import org.mcast4ai.api.TenantAccess;

import javax.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Set;

/** The caller of a REST request as ONOS's realm authenticated it. */
public final class Callers {

    private Callers() {
    }

    /**
     * @param security the request's security context (ONOS's Jetty fills it from the karaf realm)
     * @return what the caller may do; a request with no authenticated user may do nothing
     */
    static TenantAccess access(SecurityContext security) {
        Principal user = security == null ? null : security.getUserPrincipal();
        if (user == null) {
            return TenantAccess.of(null, role -> false);
        }
        return TenantAccess.of(user.getName(), security::isUserInRole);
    }

    /**
     * What an authenticating front end (ONOS's Jetty, the lab's realm) hands the resources for a user.
     *
     * @param user  the user's name, or null for no user
     * @param roles the user's roles
     * @return the security context
     */
    public static SecurityContext authenticated(String user, Set<String> roles) {
        Set<String> held = Set.copyOf(roles);
        return new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return user == null ? null : () -> user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return held.contains(role);
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return SecurityContext.BASIC_AUTH;
            }
        };
    }
}
