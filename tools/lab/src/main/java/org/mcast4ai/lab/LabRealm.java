package org.mcast4ai.lab;

import org.mcast4ai.rest.Callers;

import javax.annotation.Priority;
import javax.ws.rs.Priorities;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * What ONOS's Jetty and Karaf realm do for the mcast4ai web bundle, in the lab: HTTP BASIC against users in
 * Karaf's {@code etc/users.properties} format ({@code user = password, role, _g_:group ...} and
 * {@code _g_\:group = group, role ...}), a 401 with a {@code WWW-Authenticate} challenge for missing or wrong
 * credentials, and a 403 for a user holding none of the roles the bundle's {@code web.xml} admits. The
 * request then carries the user and its roles, which the resources authorize per tenant.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public final class LabRealm implements ContainerRequestFilter {
    /** ONOS's default administrator, as a fresh ONOS has it. */
    public static final String DEFAULT_USERS = "onos = rocks, _g_:admingroup\n"
            + "_g_\\:admingroup = group, admin, manager, viewer\n";
    /** The roles {@code rest/src/main/webapp/WEB-INF/web.xml} admits. */
    static final Set<String> ADMITTED = Set.of("admin", "viewer", "mcast4ai-tenant");
    private static final String GROUP = "_g_:";

    private final Map<String, User> users;

    private static final class User {
        final byte[] password;
        final Set<String> roles;

        User(byte[] password, Set<String> roles) {
            this.password = password;
            this.roles = roles;
        }
    }

    /**
     * @param user     user name
     * @param password password
     * @return the value of an {@code Authorization} header for them
     */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** @return the {@code Authorization} header of ONOS's default administrator, {@code onos}/{@code rocks} */
    public static String defaultAdmin() {
        return basic("onos", "rocks");
    }

    private LabRealm(Map<String, User> users) {
        this.users = users;
    }

    /**
     * @param text users in Karaf's properties format
     * @return the realm
     * @throws IllegalArgumentException for a user without a password or a group that is not defined
     */
    public static LabRealm parse(String text) {
        Properties p = new Properties();
        try (Reader r = new StringReader(text)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        Map<String, List<String>> groups = new HashMap<>();
        Map<String, User> users = new HashMap<>();
        for (String key : p.stringPropertyNames()) {
            List<String> values = split(p.getProperty(key));
            if (key.startsWith(GROUP)) {
                if (values.isEmpty() || !values.get(0).equals("group")) {
                    throw new IllegalArgumentException(key + ": a group's value starts with 'group'");
                }
                groups.put(key.substring(GROUP.length()), values.subList(1, values.size()));
            }
        }
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(GROUP)) {
                continue;
            }
            List<String> values = split(p.getProperty(key));
            if (values.isEmpty() || values.get(0).isEmpty()) {
                throw new IllegalArgumentException("user " + key + " has no password");
            }
            Set<String> roles = new LinkedHashSet<>();
            for (String v : values.subList(1, values.size())) {
                if (v.startsWith(GROUP)) {
                    List<String> g = groups.get(v.substring(GROUP.length()));
                    if (g == null) {
                        throw new IllegalArgumentException("user " + key + ": no group " + v);
                    }
                    roles.addAll(g);
                } else {
                    roles.add(v);
                }
            }
            users.put(key, new User(values.get(0).getBytes(StandardCharsets.UTF_8), Set.copyOf(roles)));
        }
        return new LabRealm(Map.copyOf(users));
    }

    /**
     * @param file users file, or null for {@link #DEFAULT_USERS}
     * @return the realm
     * @throws IOException if the file cannot be read
     */
    public static LabRealm read(Path file) throws IOException {
        return parse(file == null ? DEFAULT_USERS : Files.readString(file));
    }

    private static List<String> split(String value) {
        List<String> out = new java.util.ArrayList<>();
        for (String s : value.split(",")) {
            out.add(s.trim());
        }
        return out;
    }

    /**
     * @param user     user name
     * @param password password
     * @return the user's roles, or null if the credentials are wrong
     */
    Set<String> authenticate(String user, String password) {
        User u = users.get(user);
        byte[] given = password.getBytes(StandardCharsets.UTF_8);
        // compared in constant time, against a dummy for unknown users, so timing tells nothing
        boolean match = MessageDigest.isEqual(u == null ? new byte[given.length + 1] : u.password, given);
        return u != null && match ? u.roles : null;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        String[] credentials = basic(header);
        Set<String> roles = credentials == null ? null : authenticate(credentials[0], credentials[1]);
        if (roles == null) {
            request.abortWith(Response.status(Response.Status.UNAUTHORIZED)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"karaf\"")
                    .type(MediaType.APPLICATION_JSON)
                    .entity("{\"code\":401,\"message\":\"" + (header == null ? "credentials required"
                            : "wrong user name or password") + " (HTTP BASIC, realm karaf)\"}").build());
            return;
        }
        if (roles.stream().noneMatch(ADMITTED::contains)) {
            request.abortWith(Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON)
                    .entity("{\"code\":403,\"message\":\"this API admits the roles admin, viewer and "
                            + "mcast4ai-tenant\"}").build());
            return;
        }
        request.setSecurityContext(Callers.authenticated(credentials[0], roles));
    }

    private static String[] basic(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        return colon < 0 ? null : new String[]{decoded.substring(0, colon), decoded.substring(colon + 1)};
    }
}
