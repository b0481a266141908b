package org.mcast4ai.lab;

import javax.annotation.Priority;
import javax.ws.rs.Priorities;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.SecurityContext;
import java.security.Principal;

/**
 * The lab serves on loopback only and has no users: every request acts as an ONOS {@code admin},
 * so ONOS's AuthorizationFilter lets writes through exactly as it does for an authenticated admin.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public class LoopbackAdmin implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return () -> "lab";
            }

            @Override
            public boolean isUserInRole(String role) {
                return "admin".equals(role) || "viewer".equals(role);
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return "lab";
            }
        });
    }
}
