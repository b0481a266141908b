package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.codec.Mcast4aiCodecs;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.rest.BaseResource;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.impl.CodecManager;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;

/**
 * The mcast4ai JAX-RS application in a real Grizzly HTTP server (Jersey 2.27, as in ONOS 2.7) on a free
 * loopback port, with the given
 * group service and the ONOS codec service (with the mcast4ai codecs) as its service directory, and a
 * plain JDK HTTP client to talk to it.
 */
final class RestServer {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpServer server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;

    /** One HTTP exchange. */
    static final class Reply {
        final int status;
        final String body;
        final HttpResponse<String> raw;

        Reply(HttpResponse<String> raw) {
            this.raw = raw;
            this.status = raw.statusCode();
            this.body = raw.body();
        }

        JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }

        Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    /** What the P4 fabric service answers. */
    volatile org.mcast4ai.api.P4FabricStatus p4Status = new org.mcast4ai.api.P4FabricStatus(false,
            java.util.List.of(), 0, 0, 0, 0, 0, null);

    RestServer(P2mpGroupAdminService groups) throws Exception {
        CodecManager codecs = new CodecManager();
        codecs.activate();
        Mcast4aiCodecs.registerAll(codecs);
        setServices(new TestServiceDirectory()
                .add(P2mpGroupAdminService.class, groups)
                .add(org.mcast4ai.api.P4FabricService.class, (org.mcast4ai.api.P4FabricService) () -> p4Status)
                .add(CodecService.class, codecs));
        server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"),
                ResourceConfig.forApplication(new Mcast4aiWebApplication()).register(TestCaller.class), false);
        // ONOS's Jetty accepts a body on DELETE (remove receivers); Grizzly must be told to
        server.getServerConfiguration().setAllowPayloadForUndefinedHttpMethods(true);
        server.start();
        int port = server.getListeners().iterator().next().getPort();
        base = URI.create("http://127.0.0.1:" + port + "/");
    }

    private static void setServices(ServiceDirectory directory) throws ReflectiveOperationException {
        Field f = BaseResource.class.getDeclaredField("services");
        f.setAccessible(true);
        f.set(null, directory);
    }

    void stop() {
        server.shutdownNow();
    }

    /**
     * @param method HTTP method
     * @param path   path and query under the application root, e.g. "groups?tenant=t"
     * @param body   JSON body ('-quoted allowed) or null
     * @return the reply
     */
    Reply call(String method, String path, String body) throws IOException, InterruptedException {
        return call(method, path, body == null ? null : body.replace('\'', '"'), "application/json");
    }

    Reply call(String method, String path, String body, String contentType)
            throws IOException, InterruptedException {
        return send(request(method, path, body, contentType));
    }

    /**
     * Calls as a user with roles (what ONOS's realm would have authenticated).
     *
     * @param user   user name
     * @param roles  comma-separated roles (may be empty)
     * @param method HTTP method
     * @param path   path and query
     * @param body   JSON body ('-quoted allowed) or null
     * @return the reply
     */
    Reply callAs(String user, String roles, String method, String path, String body)
            throws IOException, InterruptedException {
        return send(request(method, path, body == null ? null : body.replace('\'', '"'), "application/json")
                .header(TestCaller.USER, user).header(TestCaller.ROLES, roles));
    }

    private Reply send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return new Reply(client.send(b.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private HttpRequest.Builder request(String method, String path, String body, String contentType) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
                // a request the server never answers fails the test instead of hanging it
                .timeout(java.time.Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", contentType);
        }
        return b;
    }
}
