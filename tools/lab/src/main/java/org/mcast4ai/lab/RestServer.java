package org.mcast4ai.lab;

import com.sun.net.httpserver.HttpServer;
import org.glassfish.jersey.jdkhttp.JdkHttpHandlerContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.rest.BaseResource;

import javax.ws.rs.core.Application;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Serves a JAX-RS application (the mcast4ai REST module's) with Jersey 2.27 on the JDK HTTP server,
 * with {@link BaseResource} looking services up in the lab's directory instead of OSGi, behind a
 * {@link LabRealm} (BASIC, as ONOS's Jetty).
 */
public final class RestServer implements AutoCloseable {

    /** Seconds a request may take from its first byte to its answer before its connection is closed. */
    static final long MAX_REQUEST_SECONDS = 10;
    private static final int THREADS = 16;
    private static final int QUEUE = 256;

    private final HttpServer server;
    private final URI base;
    private final ThreadPoolExecutor pool;

    private RestServer(HttpServer server, URI base, ThreadPoolExecutor pool) {
        this.server = server;
        this.base = base;
        this.pool = pool;
    }

    /**
     * Starts serving.
     *
     * @param applicationClass JAX-RS application class name
     * @param base             base URI, e.g. {@code http://127.0.0.1:8181/onos/mcast4ai/}
     * @param directory        where the resources find services
     * @param realm            who may call, with which roles
     * @return the running server
     * @throws IllegalStateException if the application cannot be loaded
     */
    public static RestServer start(String applicationClass, URI base, ServiceDirectory directory, LabRealm realm) {
        useDirectory(directory);
        Application app;
        try {
            app = (Application) Class.forName(applicationClass).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot load the REST application " + applicationClass + ": " + e, e);
        }
        ResourceConfig config = ResourceConfig.forApplication(app).register(realm);
        // the JDK server reads these once, when its first server is made: without TCP_NODELAY every keep-alive
        // answer waits for the client's delayed ACK (about 40 ms, Nagle); without a request time limit a client
        // whose Content-Length exceeds its body holds a thread for good
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            // -Dsun.net.httpserver.nodelay=false gives the baseline of tools/lab/bench-rest
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", Long.toString(MAX_REQUEST_SECONDS));
        }
        try {
            // bound to the base URI's address (JdkHttpServerFactory binds every interface whatever the host)
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(base.getHost()),
                    base.getPort()), 0);
            JdkHttpHandlerContainer handler = ContainerFactory.createContainer(JdkHttpHandlerContainer.class, config);
            String path = base.getPath().endsWith("/") ? base.getPath().substring(0, base.getPath().length() - 1)
                    : base.getPath();
            server.createContext(path.isEmpty() ? "/" : path, handler);
            // a bounded pool: a flood of slow clients queues, then is refused, instead of growing threads
            ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(QUEUE), r -> {
                        Thread t = new Thread(r, "mcast4ai-lab-rest");
                        t.setDaemon(true);
                        return t;
                    });
            server.setExecutor(pool);
            server.start();
            return new RestServer(server, base, pool);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot serve on " + base + ": " + e.getMessage(), e);
        }
    }

    /**
     * Points {@link BaseResource} (and so every ONOS REST resource) at a service directory. ONOS
     * 2.7's BaseResource has no setter; the directory is a private static field.
     *
     * @param directory service directory
     */
    static void useDirectory(ServiceDirectory directory) {
        try {
            Field f = BaseResource.class.getDeclaredField("services");
            f.setAccessible(true);
            f.set(null, directory);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot set the REST service directory: " + e, e);
        }
    }

    /**
     * Returns the base URI.
     *
     * @return base URI
     */
    public URI base() {
        return base;
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
