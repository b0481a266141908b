package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.BitmapPlan;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Printable;
import org.mcast4ai.api.TenantAccess;
import org.onlab.osgi.ServiceNotFoundException;
import org.onosproject.codec.JsonCodec;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
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
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * P2MP groups: create a group for a job, read and list groups, change receivers, withdraw. Every call is
 * authorized per tenant ({@link TenantAccess}): a caller sees only the groups of tenants it may read, and a
 * group it may not read answers 404 like an unknown id.
 */
@Path("groups")
public class GroupsWebResource extends AbstractWebResource {

    @Context
    private UriInfo uriInfo;

    @Context
    private SecurityContext security;

    /**
     * Creates a group. The app assigns the group's id and multicast address, then compiles and installs it
     * asynchronously; poll the group until its state is INSTALLED (or FAILED, with the reason).
     * Endpoints are an ONOS host id, a MAC or an IP, as a string or as {"host": ..., "qpn": ...}.
     * Returns 201 with the group and its Location; 400 for a malformed or invalid request (unknown field,
     * unknown host, source among the receivers, duplicate receivers), 403 if the caller may not create groups
     * for the tenant, 409 for a duplicate tenant/name or an exhausted limit or address pool.
     *
     * @param stream the group request as JSON
     * @return 201 Created with the group
     * @throws IOException if the body cannot be read
     * @onos.rsModel GroupRequest
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response createGroup(InputStream stream) throws IOException {
        onlyQuery();
        ObjectNode body = RequestBodies.object(stream);
        P2mpGroupRequest request = codecFor(P2mpGroupRequest.class).decode(body, this);
        access().checkCreate(request.key().tenant());
        P2mpGroup group = fresh(service().submit(request));
        URI location = uriInfo.getBaseUriBuilder().path("groups").path(group.id().toString()).build();
        return Response.created(location).entity(json(group)).build();
    }

    /**
     * Lists the groups the caller may read in id order, optionally filtered; filters combine with AND. A
     * scheduler that knows its tenant and group name finds its group with ?tenant=...&amp;name=... (at most
     * one). Returns {"groups": [...]}; 400 for an unknown state, a name without a tenant, or a query parameter
     * other than these (a misspelt filter must not select every group); 403 for a tenant filter naming a
     * tenant the caller may not read.
     *
     * @param tenant only groups of this tenant
     * @param name   only the group of this name (needs tenant)
     * @param job    only groups of this scheduler job id
     * @param jobId  the same, named like the group's JSON field (give one of the two)
     * @param state  only groups in this state (SUBMITTED, COMPILING, INSTALLING, INSTALLED, DEGRADED, FAILED,
     *               WITHDRAWING, WITHDRAWN)
     * @return 200 OK with the groups
     * @onos.rsModel Groups
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getGroups(@QueryParam("tenant") String tenant, @QueryParam("name") String name,
                              @QueryParam("job") String job, @QueryParam("jobId") String jobId,
                              @QueryParam("state") String state) {
        onlyQuery("tenant", "name", "job", "jobId", "state");
        if (!blank(job) && !blank(jobId)) {
            throw GroupException.invalid("give the job filter once: ?jobId= or ?job=, not both");
        }
        job = blank(job) ? jobId : job;
        GroupState st = blank(state) ? null : parseState(state);
        if (!blank(name) && blank(tenant)) {
            throw GroupException.invalid("a name filter needs a tenant: ?tenant=...&name=...");
        }
        TenantAccess access = access();
        if (!blank(tenant) && !access.mayRead(tenant)) {
            throw GroupException.forbidden("tenant: " + access.user() + " may not read tenant '"
                    + Printable.of(tenant) + "': that needs the role " + TenantAccess.ADMIN + ", "
                    + TenantAccess.VIEWER + " or " + TenantAccess.roleFor(tenant));
        }
        ObjectNode root = mapper().createObjectNode();
        ArrayNode groups = root.putArray("groups");
        JsonCodec<P2mpGroup> codec = codecFor(P2mpGroup.class);
        for (P2mpGroup g : service().getGroups(blank(tenant) ? null : tenant, blank(job) ? null : job, st)) {
            if ((blank(name) || g.key().name().equals(name)) && access.mayRead(g.key().tenant())) {
                groups.add(codec.encode(g, this));
            }
        }
        return ok(root).build();
    }

    /**
     * Returns one group: the request, the assigned address and effective mode, the state with its reason
     * and history. Returns 404 for an unknown id (or a group the caller may not read), 400 for an id that is
     * not a positive integer.
     *
     * @param id group id
     * @return 200 OK with the group
     * @onos.rsModel Group
     */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getGroup(@PathParam("id") String id) {
        onlyQuery();
        return ok(json(readable(P2mpGroupId.parse(id)))).build();
    }

    /**
     * Withdraws a group: removes every switch entry it installed. The record stays (state WITHDRAWN)
     * until purged. With purge=true the record is also removed once the group is withdrawn, which frees
     * its tenant/name and address: 204 if purged, 202 with the group while the withdrawal is still in
     * progress (WITHDRAWING: repeat the call to purge). Returns 200 with the group when not purging;
     * 404 for an unknown id; 403 if the caller may read but not change the group; 400 if purge is anything
     * but true or false.
     *
     * @param id         group id
     * @param purgeParam purge=true also removes the record
     * @return 200 OK with the group, 202 Accepted or 204 No Content
     */
    @DELETE
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response withdrawGroup(@PathParam("id") String id, @QueryParam("purge") String purgeParam) {
        onlyQuery("purge");
        boolean purge = flag("purge", purgeParam);
        P2mpGroupId gid = P2mpGroupId.parse(id);
        P2mpGroup group = changeable(gid);
        if (!purge || group.state() != GroupState.WITHDRAWN) {
            group = fresh(service().withdraw(gid));
        }
        if (!purge) {
            return ok(json(group)).build();
        }
        if (group.state() != GroupState.WITHDRAWN) {
            return Response.accepted(json(group)).build();
        }
        service().purge(gid);
        return Response.noContent().build();
    }

    /**
     * Adds receivers to a group; only switches whose branches change are touched. Idempotent: a member added
     * again changes nothing, a member named with another QPN gets it in place. Body: {"receivers": [...]}.
     * Returns 200 with the updated group; 400 if a receiver is unknown or the source; 404 for an unknown id;
     * 403 if the caller may not change the group; 409 if the group is withdrawn or a limit is hit.
     *
     * @param id     group id
     * @param stream the receivers to add as JSON
     * @return 200 OK with the group
     * @throws IOException if the body cannot be read
     * @onos.rsModel Receivers
     */
    @POST
    @Path("{id}/receivers")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response addReceivers(@PathParam("id") String id, InputStream stream) throws IOException {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        List<Endpoint> receivers = RequestBodies.receivers(RequestBodies.object(stream));
        changeable(gid);
        return ok(json(fresh(service().addReceivers(gid, RequestBodies.distinct(receivers))))).build();
    }

    /**
     * Removes receivers from a group, given either as a body {"receivers": [...]} or as one or more
     * host query parameters (?host=10.0.0.2&amp;host=10.0.0.3), not both. A receiver given without a QPN
     * matches the group's receiver on that host. At least one receiver must remain (withdraw the group
     * instead). Idempotent: a receiver that is not in the group is a success that changes nothing. Returns 200
     * with the updated group; 400 if no receiver would remain; 404 for an unknown id; 403 if the caller may
     * not change the group; 409 if the group is withdrawn.
     *
     * @param id     group id
     * @param hosts  receivers to remove, by host
     * @param stream the receivers to remove as JSON (optional when hosts are given)
     * @return 200 OK with the group
     * @throws IOException if the body cannot be read
     * @onos.rsModel Receivers
     */
    @DELETE
    @Path("{id}/receivers")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response removeReceivers(@PathParam("id") String id, @QueryParam("host") List<String> hosts,
                                    InputStream stream) throws IOException {
        onlyQuery("host");
        P2mpGroupId gid = P2mpGroupId.parse(id);
        byte[] bytes = RequestBodies.bounded(stream);
        boolean hasBody = !new String(bytes, StandardCharsets.UTF_8).isBlank();
        List<Endpoint> given = new ArrayList<>();
        if (hosts != null && !hosts.isEmpty()) {
            if (hasBody) {
                throw GroupException.invalid("give the receivers to remove either in the body or as ?host=, "
                        + "not both");
            }
            hosts.forEach(h -> given.add(Endpoint.of(h)));
        } else if (hasBody) {
            given.addAll(RequestBodies.receivers(RequestBodies.object(new ByteArrayInputStream(bytes))));
        } else {
            throw GroupException.invalid("no receivers to remove: give a body {\"receivers\": [...]} "
                    + "or ?host=...");
        }
        Set<Endpoint> receivers = changeable(gid).receiversNamed(RequestBodies.distinct(given));
        return ok(json(fresh(service().removeReceivers(gid, receivers)))).build();
    }

    /**
     * Returns what is installed for a group and how it replicates ({@code mode}). A TREE group: per device, the
     * port its packets enter by and the ports copies leave by, and the switch-to-switch links of the tree. A
     * BITMAP group has no per-device tree ({@code devices} and {@code links} are empty): {@code bitmap} names its
     * one per-group entry, the stamp on the source leaf (device, port, bits, stamp address, the uplink its
     * copies take), and the static tables it shares with every group (generation, whether the switches
     * acknowledged them, rules and egress groups per switch); {@code transitEntries} is 0. Empty when nothing
     * is installed. Returns 404 for an unknown id.
     *
     * @param id group id
     * @return 200 OK with the plan
     * @onos.rsModel Plan
     */
    @GET
    @Path("{id}/plan")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getPlan(@PathParam("id") String id) {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        P2mpGroup group = readable(gid);
        GroupPlan plan = service().getInstalledPlan(gid);
        ObjectNode root = mapper().createObjectNode().put("mode", group.effectiveMode().name());
        root.setAll(codecFor(GroupPlan.class).encode(plan == null ? GroupPlan.empty() : plan, this));
        service().getBitmapPlan(gid).ifPresent(b -> root.set("bitmap", codecFor(BitmapPlan.class).encode(b, this)));
        service().getStampPlan(gid).ifPresent(p -> root.set("stamp",
                codecFor(org.mcast4ai.api.StampPlan.class).encode(p, this)));
        return ok(root).build();
    }

    /**
     * Returns where a group's packets go now: one packet followed from the sender through what the switches
     * were given for the group (a TREE group's rules; a BITMAP group's stamp and the static tables, by the same
     * code that plans them) over the fabric as ONOS sees it. {@code devices}, in the order the packets reach
     * them: each device's roles (INGRESS: the sender's switch, TRANSIT, EGRESS: hands copies to receivers), the
     * port packets arrive on, the ports copies leave by and, for BITMAP, the part of the stamp or header it
     * acts on ({@code serves}); {@code links}: the switch-to-switch links copies cross; {@code paths}: per
     * receiver reached, the devices from the sender's switch to its own; {@code unreachable}: receivers not
     * reached; {@code strays}: hosts that would get a copy without being receivers (empty when the switches
     * are right). Returns 404 for an unknown id.
     *
     * @param id group id
     * @return 200 OK with the tree
     * @onos.rsModel Tree
     */
    @GET
    @Path("{id}/tree")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getTree(@PathParam("id") String id) {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        return ok(codecFor(org.mcast4ai.api.GroupTree.class).encode(service().tree(gid), this)).build();
    }

    /**
     * Returns the bit map of a group replicated as BITMAP: the receiver bit of each receiver, the group's bits
     * and the Ethernet source address ({@code stampMac}) that addresses the whole group. A sender addresses
     * any subset of the group per packet, without a switch write, by sending with the stamp of the OR of the
     * subset's bits as its source address (same encoding, see {@code tools/traffic/subset_stamp.py}).
     * Returns 404 for an unknown id; 409 if the group is not replicated as BITMAP (a TREE group, or AUTO
     * that chose TREE: the message says why) or is no longer live.
     *
     * @param id group id
     * @return 200 OK with the bit map
     * @onos.rsModel Bitmap
     */
    @GET
    @Path("{id}/bitmap")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getBitmap(@PathParam("id") String id) {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        GroupBitmap bitmap = service().getBitmap(gid);
        return ok(codecFor(GroupBitmap.class).encode(bitmap, this)).build();
    }

    /**
     * Re-compiles and re-installs a group against the current fabric (for example after a repair).
     * Returns 200 with the group; 404 for an unknown id; 403 if the caller may not change the group; 409 if
     * the group is withdrawn.
     *
     * @param id group id
     * @return 200 OK with the group
     * @onos.rsModel Group
     */
    @POST
    @Path("{id}/recompile")
    @Produces(MediaType.APPLICATION_JSON)
    public Response recompileGroup(@PathParam("id") String id) {
        onlyQuery();
        P2mpGroupId gid = P2mpGroupId.parse(id);
        changeable(gid);
        return ok(json(fresh(service().recompile(gid)))).build();
    }

    private P2mpGroupAdminService service() {
        return get(P2mpGroupAdminService.class);
    }

    private P2mpGroup existing(P2mpGroupId id) {
        return service().getGroup(id).orElseThrow(() -> GroupException.notFound(id));
    }

    private P2mpGroup readable(P2mpGroupId id) {
        return access().readable(existing(id));
    }

    private P2mpGroup changeable(P2mpGroupId id) {
        return access().changeable(existing(id));
    }

    private TenantAccess access() {
        return Callers.access(security);
    }

    private ObjectNode json(P2mpGroup group) {
        return codecFor(P2mpGroup.class).encode(group, this);
    }

    private <T> JsonCodec<T> codecFor(Class<T> type) {
        JsonCodec<T> codec = codec(type);
        if (codec == null) {
            throw new ServiceNotFoundException("no JSON codec for " + type.getSimpleName()
                    + "; is the mcast4ai app active?");
        }
        return codec;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static GroupState parseState(String text) {
        try {
            return GroupState.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw GroupException.invalid("state must be one of " + Arrays.toString(GroupState.values())
                    + "; got '" + text + "'");
        }
    }


    /**
     * The freshest record of a group just changed: the change was stored and its work handed to the group's
     * lane, which may already have compiled it, decided its mode or had the switches acknowledge.
     */
    private P2mpGroup fresh(P2mpGroup changed) {
        return service().getGroup(changed.id()).orElse(changed);
    }

    private void onlyQuery(String... allowed) {
        RequestBodies.onlyQuery(uriInfo, allowed);
    }

    private static boolean flag(String name, String value) {
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw GroupException.invalid("query parameter " + name + " must be true or false; got '"
                + Printable.of(value) + "'");
    }
}
