package org.mcast4ai.rest;

import org.onlab.rest.AbstractWebApplication;
import org.onlab.rest.AuthorizationFilter;
import org.onlab.rest.exceptions.IllegalArgumentExceptionMapper;
import org.onlab.rest.exceptions.WebApplicationExceptionMapper;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The mcast4ai JAX-RS application: the group resource, ONOS's standard mappers, and the mappers that turn
 * refused requests into {@code {"code": 4xx, "message": "..."}}. Authentication is ONOS's (BASIC against the
 * karaf realm, {@code web.xml}); authorization is per tenant, in the resources.
 */
public class Mcast4aiWebApplication extends AbstractWebApplication {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new LinkedHashSet<>(getClasses(GroupsWebResource.class, ReconcileWebResource.class,
                AggregationWebResource.class, P4FabricWebResource.class,
                GroupExceptionMapper.class, JsonProcessingExceptionMapper.class, InvalidArgumentMapper.class,
                WebErrorMapper.class));
        // ours replace these two (same status, plus a JSON body for JAX-RS refusals); two mappers for one
        // type would make Jersey's choice arbitrary
        classes.remove(IllegalArgumentExceptionMapper.class);
        classes.remove(WebApplicationExceptionMapper.class);
        // ONOS's filter lets only admin write; here a tenant user (not an ONOS admin) changes its own tenant's
        // groups, and the resources authorize every call per tenant (TenantAccess)
        classes.remove(AuthorizationFilter.class);
        return classes;
    }
}
