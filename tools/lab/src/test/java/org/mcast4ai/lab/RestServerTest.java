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

/** The lab's HTTP server: loopback only, and a client that never sends its whole body does not hold a thread. */
class RestServerTest {

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
        /** @return pong */
        @GET
        public String ping() {
            return "pong";
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
                URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"), new ServiceRegistry())) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/ping")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("pong", r.body());
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
                URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/"), new ServiceRegistry());
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
                    URI.create("http://127.0.0.1:" + port + "/onos/mcast4ai/ping")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("pong", r.body());
        }
    }
}
