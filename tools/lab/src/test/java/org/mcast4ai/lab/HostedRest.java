package org.mcast4ai.lab;

import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.codec.Mcast4aiCodecs;
import org.mcast4ai.impl.HostedManager;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.impl.CodecManager;

import java.net.ServerSocket;
import java.net.URI;

/**
 * The lab's REST server (its realm, the real REST application) over the real group manager on switches that
 * acknowledge at once ({@link HostedManager}: hosts {@code 10.0.0.1} ...), on a free loopback port. Users:
 * {@code onos}/{@code rocks} (admin), {@code alice}/{@code wonder} (tenant t1), {@code bob}/{@code builder}
 * (tenant t2).
 */
final class HostedRest implements AutoCloseable {
    static final String USERS = LabRealm.DEFAULT_USERS
            + "alice = wonder, mcast4ai-tenant, mcast4ai-tenant-t1\n"
            + "bob = builder, mcast4ai-tenant, mcast4ai-tenant-t2\n";

    final HostedManager hosted;
    final RestServer server;
    final int port;

    HostedRest(int hosts, String... config) throws Exception {
        hosted = HostedManager.withHosts(hosts, config);
        CodecManager codecs = new CodecManager();
        codecs.activate();
        Mcast4aiCodecs.registerAll(codecs);
        ServiceRegistry registry = new ServiceRegistry()
                .register(P2mpGroupAdminService.class, hosted.service())
                .register(CodecService.class, codecs);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        server = RestServer.start(Lab.REST_APPLICATION, URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"),
                registry, LabRealm.parse(USERS));
    }

    /** @return the API's base URI */
    URI base() {
        return server.base();
    }

    @Override
    public void close() {
        server.close();
        hosted.close();
    }
}
