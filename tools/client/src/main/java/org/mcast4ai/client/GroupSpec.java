package org.mcast4ai.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What a scheduler asks for: a group's tenant and name, job, source and receivers, and optionally its mode,
 * reliability and priority. Endpoints are written {@code host} or {@code host#qpn}, host being an ONOS host id,
 * a MAC or an IP (see {@link Endpoints} for names).
 */
public final class GroupSpec {
    private final String tenant;
    private final String name;
    private String jobId;
    private String source;
    private final List<String> receivers = new ArrayList<>();
    private String mode;
    private String reliability;
    private Integer priority;

    private GroupSpec(String tenant, String name) {
        this.tenant = tenant;
        this.name = name;
    }

    /**
     * @param tenant the tenant
     * @param name   the group's name within the tenant
     * @return a spec to fill in
     */
    public static GroupSpec of(String tenant, String name) {
        return new GroupSpec(tenant, name);
    }

    /**
     * @param id scheduler job id
     * @return this
     */
    public GroupSpec jobId(String id) {
        this.jobId = id;
        return this;
    }

    /**
     * @param endpoint the sender, {@code host} or {@code host#qpn}
     * @return this
     */
    public GroupSpec source(String endpoint) {
        this.source = endpoint;
        return this;
    }

    /**
     * @param endpoints receivers, each {@code host} or {@code host#qpn}
     * @return this
     */
    public GroupSpec receivers(List<String> endpoints) {
        receivers.addAll(endpoints);
        return this;
    }

    /**
     * @param m AUTO, TREE or BITMAP
     * @return this
     */
    public GroupSpec mode(String m) {
        this.mode = m;
        return this;
    }

    /**
     * @param r the reliability, e.g. NONE or ACK_AGGREGATION
     * @return this
     */
    public GroupSpec reliability(String r) {
        this.reliability = r;
        return this;
    }

    /**
     * @param p the priority of the group's switch entries
     * @return this
     */
    public GroupSpec priority(int p) {
        this.priority = p;
        return this;
    }

    /**
     * @param mapper JSON mapper
     * @return the request body of {@code POST groups}
     */
    ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode().put("tenant", tenant).put("name", name);
        if (jobId != null) {
            n.put("jobId", jobId);
        }
        n.set("source", Endpoints.json(mapper, source));
        ArrayNode rs = n.putArray("receivers");
        receivers.forEach(r -> rs.add(Endpoints.json(mapper, r)));
        if (mode != null) {
            n.put("mode", mode);
        }
        if (reliability != null) {
            n.put("reliability", reliability);
        }
        if (priority != null) {
            n.put("priority", priority);
        }
        return n;
    }
}
