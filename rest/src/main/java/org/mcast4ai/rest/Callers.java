package org.mcast4ai.rest;

import org.mcast4ai.api.TenantAccess;

import javax.ws.rs.core.SecurityContext;
import java.security.Principal;

/** The caller of a REST request as ONOS's realm authenticated it. */
final class Callers {

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
}
