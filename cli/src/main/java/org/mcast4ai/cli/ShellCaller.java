package org.mcast4ai.cli;

import org.mcast4ai.api.TenantAccess;

import javax.security.auth.Subject;
import java.security.AccessController;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;

/**
 * The Karaf shell's user as its JAAS login left it: Karaf runs every command of a session (ssh or the local
 * console) as that session's subject, with one {@code UserPrincipal} and a {@code RolePrincipal} per role.
 */
final class ShellCaller {
    // matched by name: importing org.apache.karaf.jaas.boot.principal would tie the bundle to Karaf's boot
    // classpath for two class names
    private static final String USER = "org.apache.karaf.jaas.boot.principal.UserPrincipal";
    private static final String ROLE = "org.apache.karaf.jaas.boot.principal.RolePrincipal";

    private ShellCaller() {
    }

    /**
     * @return what the running command's user may do; a command run with no logged-in user (code inside the
     *         controller) is unrestricted
     */
    @SuppressWarnings("removal")
    static TenantAccess current() {
        Subject subject = Subject.getSubject(AccessController.getContext());
        return subject == null ? TenantAccess.unrestricted() : of(subject);
    }

    /**
     * @param subject a JAAS subject
     * @return the subject's access; a subject without a Karaf user is unrestricted
     */
    static TenantAccess of(Subject subject) {
        String user = null;
        List<String> roles = new ArrayList<>();
        for (Principal p : subject.getPrincipals()) {
            String type = p.getClass().getName();
            if (type.equals(USER)) {
                user = p.getName();
            } else if (type.equals(ROLE)) {
                roles.add(p.getName());
            }
        }
        return user == null ? TenantAccess.unrestricted() : TenantAccess.of(user, roles);
    }
}
