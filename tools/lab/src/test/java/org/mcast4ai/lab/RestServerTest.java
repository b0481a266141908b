package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.Application;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lab's HTTP server: loopback only, BASIC against the configured users as ONOS's realm, and a client that
 * never sends its whole body does not hold a thread.
 */
class RestServerTest {
    private static final String USERS = LabRealm.DEFAULT_USERS
            + "alice = wonder, _g_:t1users\n"
            + "_g_\\:t1users = group, mcast4ai-tenant, mcast4ai-tenant-t1\n"
            + "mallory = x, manager\n";

    /** A one-resource application. */
    public static final class Ping extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(PingResource.class);
        }
    }

    /** Answers pings; reads a body to its end. */
    @Path("ping")
    public static final class PingResource {
        /**
         * @param security the caller
         * @return pong and who asked with which roles
         */
        @GET
        public String ping(@javax.ws.rs.core.Context javax.ws.rs.core.SecurityContext security) {
            return "pong " + security.getUserPrincipal().getName()
                    + (security.isUserInRole("admin") ? " admin" : "")
                    + (security.isUserInRole("mcast4ai-tenant-t1") ? " t1" : "");
        }

        /**
         * @param body the request body
         * @return its length
         * @throws java.io.IOException if it cannot be read
         */
        @POST
        public String length(InputStream body) throws java.io.IOException {
            return Integer.toString(body.readAllBytes().length);
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Optional<InetAddress> nonLoopback() throws Exception {
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(i.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }

    @Test
    void servesOnLoopbackOnly() throws Exception {
        int port = freePort();
        try (RestServer server = RestServer.start(Ping.class.getName(),
                URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"), new ServiceRegistry(),
                LabRealm.parse(USERS))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/ping"))
                    .header("Authorization", LabRealm.basic("onos", "rocks")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("pong onos admin", r.body());
            Optional<InetAddress> other = nonLoopback();
            assumeTrue(other.isPresent(), "no non-loopback IPv4 address on this machine");
            assertThrows(java.io.IOException.class, () -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(other.get(), port), 2000);
                }
            }, "the lab's REST API is not reachable on " + other.get());
        }
    }

    @Test
    void aBodyShorterThanItsContentLengthIsCutOffAndTheServerStillAnswers() throws Exception {
        int port = freePort();
        try (RestServer server = RestServer.start(Ping.class.getName(),
                URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"), new ServiceRegistry(),
                LabRealm.parse(USERS));
             Socket s = new Socket("127.0.0.1", port)) {
            long t0 = System.nanoTime();
            OutputStream out = s.getOutputStream();
            out.write(("POST /onos/mcast4ai/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.setSoTimeout((int) (RestServer.MAX_REQUEST_SECONDS + 10) * 1000);
            InputStream in = s.getInputStream();
            // the server closes the connection (or answers) once the request took too long
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (n == 0) {
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(seconds < RestServer.MAX_REQUEST_SECONDS + 5, "cut off after " + seconds + " s");
            // and it still serves others
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/ping"))
                    .header("Authorization", LabRealm.basic("onos", "rocks")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("pong onos admin", r.body());
        }
    }

    @Test
    void callersAuthenticateAsWithOnosRealm() throws Exception {
        int port = freePort();
        URI ping = URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/ping");
        try (RestServer server = RestServer.start(Ping.class.getName(),
                URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"), new ServiceRegistry(),
                LabRealm.parse(USERS))) {
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> none = client.send(HttpRequest.newBuilder(ping).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, none.statusCode());
            assertEquals("Basic realm=\"karaf\"", none.headers().firstValue("WWW-Authenticate").orElse(""));
            for (String auth : new String[]{LabRealm.basic("onos", "rock"), LabRealm.basic("nobody", "rocks"),
                    LabRealm.basic("onos", ""), "Basic !!!", "Bearer x", LabRealm.basic("alice", "wonder!")}) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(ping).header("Authorization", auth)
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(401, r.statusCode(), auth);
                assertTrue(r.body().contains("wrong user name or password"), r.body());
            }
            HttpResponse<String> alice = client.send(HttpRequest.newBuilder(ping)
                    .header("Authorization", LabRealm.basic("alice", "wonder")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("pong alice t1", alice.body());
            // a Karaf user holding none of the roles web.xml admits
            HttpResponse<String> mallory = client.send(HttpRequest.newBuilder(ping)
                    .header("Authorization", LabRealm.basic("mallory", "x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, mallory.statusCode());
        }
    }

    @Test
    void aUsersFileWithAnUndefinedGroupIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LabRealm.parse("bob = pw, _g_:nogroup\n"));
        assertTrue(e.getMessage().contains("nogroup"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LabRealm.parse("bob = \n"));
    }
}
