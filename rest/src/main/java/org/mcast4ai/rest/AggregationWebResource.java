package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.TenantAccess;
import org.mcast4ai.codec.AggregationContextCodec;
import org.mcast4ai.codec.AggregationReportCodec;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.Consumes;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import javax.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;

/**
 * ACK aggregation of RoCEv2 RC groups: what an aggregation point (the agent beside a sender) is configured from,
 * and where it reports its counters and the receivers it stopped waiting for. Readers see the groups they may
 * read; a report needs the right to change the group.
 */
@Path("aggregation")
public class AggregationWebResource extends AbstractWebResource {

    @Context
    private UriInfo uriInfo;

    @Context
    private SecurityContext security;

    /**
     * Lists the aggregation contexts of the live ACK_AGGREGATION groups the caller may read; with
     * {@code ?source=}, only the groups whose sender is that host (its name in the request, IP or MAC): what the
     * agent on that host configures. Returns {@code {"groups": [context, ...]}}; 400 for an unknown query
     * parameter.
     *
     * @param source the sender's host, optional
     * @return 200 OK with the contexts
     * @onos.rsModel AggregationList
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response list(@QueryParam("source") String source) {
        onlyQuery("source");
        TenantAccess access = Callers.access(security);
        ObjectNode root = mapper().createObjectNode();
        ArrayNode out = root.putArray("groups");
        for (P2mpGroup g : service().getGroups()) {
            if (g.peer().isEmpty() || !g.state().isLive() || !access.mayRead(g.key().tenant())) {
                continue;
            }
            AggregationContext c = service().getAggregation(g.id()).orElse(null);
            if (c != null && (source == null || sends(c, source.trim()))) {
                out.add(AggregationContextCodec.encode(c));
            }
        }
        return ok(root).build();
    }

    private static boolean sends(AggregationContext c, String host) {
        AggregationContext.Member s = c.sender();
        return s.host().equalsIgnoreCase(host) || s.ip().toString().equals(host)
                || s.mac().toString().equalsIgnoreCase(host);
    }

    /**
     * Returns one ACK_AGGREGATION group's aggregation context: the virtual peer (address, MAC, the QPN the
     * sender connects to, the first PSN), the sender and each receiver resolved (address, MAC, QPN, slot, the
     * virtual peer QPN its QP connects to, its first PSN, whether it is stalled) and the aggregation point's last
     * report (counters: ACKs, NAKs and CNPs in and out, drops by reason, stalls). 404 for an unknown id or a group
     * the caller may not read; 409 if the group is not ACK_AGGREGATION.
     *
     * @param id group id
     * @return 200 OK with the context
     * @onos.rsModel Aggregation
     */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response get(@PathParam("id") String id) {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        AggregationContext c = service().getAggregation(gid).orElseThrow(() -> GroupException.notFound(gid));
        return ok(AggregationContextCodec.encode(c)).build();
    }

    /**
     * Takes the aggregation point's report for a group ({@code {"agent", "counters", "stalled", "joinPsn",
     * "sentNext", "acked"}}). Receivers named in {@code stalled} are left out of the group's minimum and the
     * group is DEGRADED while any is. Returns 204; 400 for a malformed report (the message names the field); 404
     * for an unknown id; 403 if the caller may not change the group; 409 if the group is not ACK_AGGREGATION or
     * is no longer live (the agent frees its state).
     *
     * @param id     group id
     * @param stream the report as JSON
     * @return 204 No Content
     * @throws IOException if the body cannot be read
     * @onos.rsModel AggregationReport
     */
    @POST
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response report(@PathParam("id") String id, InputStream stream) throws IOException {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        AggregationReport report = AggregationReportCodec.decode(RequestBodies.object(stream));
        P2mpGroup group = service().getGroup(gid).orElseThrow(() -> GroupException.notFound(gid));
        Callers.access(security).changeable(group);
        service().reportAggregation(gid, report);
        return Response.noContent().build();
    }

    private P2mpGroupAdminService service() {
        return get(P2mpGroupAdminService.class);
    }

    private void readable(P2mpGroupId id) {
        Callers.access(security).readable(service().getGroup(id).orElseThrow(() -> GroupException.notFound(id)));
    }

    private void onlyQuery(String... allowed) {
        RequestBodies.onlyQuery(uriInfo, allowed);
    }
}
