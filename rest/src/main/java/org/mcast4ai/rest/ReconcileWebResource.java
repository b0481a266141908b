package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.ReconcileCounters;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;

/** What the reconcile loop has done: the operator's view of audits, repairs and orphans removed. */
@javax.ws.rs.Path("reconcile")
public class ReconcileWebResource extends AbstractWebResource {

    @Context
    private SecurityContext security;

    /**
     * Returns the reconcile loop's counters on the instance that answers: {@code {"audits": N, "repairs": N,
     * "orphansRemoved": N}}. An audit compares every group's record with ONOS's flow store; a repair is a group
     * whose entries were found missing and sent again (its history says why); an orphan is a rule of the app that
     * no group needed. Fabric-wide figures: 403 unless the caller is an administrator or a viewer.
     *
     * @return 200 OK with the counters
     * @onos.rsModel Reconcile
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getCounters() {
        Callers.access(security).checkReadsAll();
        ReconcileCounters c = get(P2mpGroupAdminService.class).reconcileCounters();
        ObjectNode root = mapper().createObjectNode()
                .put("audits", c.audits())
                .put("repairs", c.repairs())
                .put("orphansRemoved", c.orphansRemoved());
        return ok(root).build();
    }
}
