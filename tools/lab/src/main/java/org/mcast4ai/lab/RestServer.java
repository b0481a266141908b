package org.mcast4ai.lab;

import com.sun.net.httpserver.HttpServer;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.rest.BaseResource;

import javax.ws.rs.core.Application;
import java.lang.reflect.Field;
import java.net.URI;

/**
 * Serves a JAX-RS application (the mcast4ai REST module's) with Jersey 2.27 on the JDK HTTP server,
 * with {@link BaseResource} looking services up in the lab's directory instead of OSGi.
 */
public final class RestServer implements AutoCloseable {

    private final HttpServer server;
    private final URI base;

    private RestServer(HttpServer server, URI base) {
        this.server = server;
        this.base = base;
    }

    /**
     * Starts serving.
     *
     * @param applicationClass JAX-RS application class name
     * @param base             base URI, e.g. {@code http://127.0.0.1:8181/onos/mcast4ai/}
     * @param directory        where the resources find services
     * @return the running server
     * @throws IllegalStateException if the application cannot be loaded
     */
    public static RestServer start(String applicationClass, URI base, ServiceDirectory directory) {
        useDirectory(directory);
        Application app;
        try {
            app = (Application) Class.forName(applicationClass).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("cannot load the REST application " + applicationClass + ": " + e, e);
        }
        ResourceConfig config = ResourceConfig.forApplication(app).register(LoopbackAdmin.class);
        // without TCP_NODELAY every keep-alive answer waits for the client's delayed ACK (about 40 ms, Nagle);
        // the JDK server reads the setting once, when its first server is made
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = JdkHttpServerFactory.createHttpServer(base, config, true);
        return new RestServer(server, base);
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
    }
}
