package org.mcast4ai.rest;

import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.codec.P4FabricStatusCodec;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import javax.ws.rs.core.UriInfo;

/** The P4 switches' static state: what an operator or a script checks before trusting the P4 fabric. */
@javax.ws.rs.Path("p4-fabric")
public class P4FabricWebResource extends AbstractWebResource {

    @Context
    private SecurityContext security;
    @Context
    private UriInfo uriInfo;

    /**
     * Returns the P4 fabric loop's status on the instance that answers: the switches bound to mcast4ai's
     * pipeconf, what the last run wrote, the switches that have not acknowledged their static state
     * ({@code unacknowledged}: groups with receivers behind them wait), the switches, and links as {@code a/b},
     * back after a failure that the others do not forward through until they acknowledged ({@code joining}), and
     * why the switches could not be programmed ({@code problem}, null if they could). The state is in place
     * everywhere when {@code problem} is null and both lists are empty. Fabric-wide figures: 403 unless the
     * caller is an administrator or a viewer; 400 for a query parameter (it takes none).
     *
     * @return 200 OK with the status
     * @onos.rsModel P4Fabric
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getStatus() {
        RequestBodies.onlyQuery(uriInfo);
        Callers.access(security).checkReadsAll();
        return ok(P4FabricStatusCodec.encode(get(P4FabricService.class).status())).build();
    }
}
