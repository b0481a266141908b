package org.mcast4ai.rest;

import javax.annotation.Priority;
import javax.ws.rs.Priorities;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Stands in for ONOS's Jetty realm in the REST tests: the caller is the user and roles the test names in two
 * headers; a request without them is ONOS's default administrator ({@code onos}, admin and viewer). BASIC
 * parsing and wrong passwords are the lab realm's tests.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public class TestCaller implements ContainerRequestFilter {
    static final String USER = "X-Test-User";
    static final String ROLES = "X-Test-Roles";

    @Override
    public void filter(ContainerRequestContext request) {
        String user = request.getHeaderString(USER);
        String roleList = request.getHeaderString(ROLES);
        String name = user == null ? "onos" : user;
        Set<String> roles = roleList == null ? Set.of("admin", "viewer")
                : Arrays.stream(roleList.split(",")).map(String::trim).filter(r -> !r.isEmpty())
                .collect(Collectors.toSet());
        request.setSecurityContext(Callers.authenticated(user != null && user.isEmpty() ? null : name, roles));
    }
}
