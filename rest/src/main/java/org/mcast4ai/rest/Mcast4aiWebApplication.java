package org.mcast4ai.rest;

import org.onlab.rest.AbstractWebApplication;
import org.onlab.rest.exceptions.IllegalArgumentExceptionMapper;
import org.onlab.rest.exceptions.WebApplicationExceptionMapper;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The mcast4ai JAX-RS application: the group resource, ONOS's standard filters and mappers, and the
 * mappers that turn refused requests into {@code {"code": 4xx, "message": "..."}}.
 */
public class Mcast4aiWebApplication extends AbstractWebApplication {

    @Override
    public Set<Class<?>> getClasses() {
        Set<Class<?>> classes = new LinkedHashSet<>(getClasses(GroupsWebResource.class, ReconcileWebResource.class,
                GroupExceptionMapper.class, JsonProcessingExceptionMapper.class, InvalidArgumentMapper.class,
                WebErrorMapper.class));
        // ours replace these two (same status, plus a JSON body for JAX-RS refusals); two mappers for one
        // type would make Jersey's choice arbitrary
        classes.remove(IllegalArgumentExceptionMapper.class);
        classes.remove(WebApplicationExceptionMapper.class);
        return classes;
    }
}
