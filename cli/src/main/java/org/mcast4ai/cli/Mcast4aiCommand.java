package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.TenantAccess;
import org.onosproject.cli.AbstractShellCommand;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.JsonCodec;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Base of the mcast4ai commands: the group and codec services are injected by Karaf (so a test can set
 * them), JSON output goes through the registered codecs, and a refused request prints one line, the
 * service's message, never a stack trace. The shell's user is authorized per tenant as over REST
 * ({@link TenantAccess}): a group it may not read does not exist for it.
 */
public abstract class Mcast4aiCommand extends AbstractShellCommand {

    /** The group service. */
    @Reference
    protected P2mpGroupAdminService groupService;

    /** The ONOS codec service, holding the mcast4ai codecs. */
    @Reference
    protected CodecService codecService;

    /**
     * The freshest record of a group just changed: its work went to the group's lane, which may already have
     * compiled it, decided its mode or had the switches acknowledge.
     *
     * @param changed what the change returned
     * @return the stored record now, or {@code changed} if it is gone
     */
    protected P2mpGroup fresh(P2mpGroup changed) {
        return groupService.getGroup(changed.id()).orElse(changed);
    }

    /** @return what the shell's user may do */
    protected TenantAccess access() {
        return ShellCaller.current();
    }

    /**
     * @param id a group id
     * @return the group, if the shell's user may read it
     * @throws GroupException NOT_FOUND if there is no such group or the user may not read it
     */
    protected P2mpGroup readable(P2mpGroupId id) {
        return access().readable(groupService.getGroup(id).orElseThrow(() -> GroupException.notFound(id)));
    }

    /**
     * @param id a group id
     * @return the group, if the shell's user may change it
     * @throws GroupException NOT_FOUND as {@link #readable}, FORBIDDEN if the user may only read it
     */
    protected P2mpGroup changeable(P2mpGroupId id) {
        return access().changeable(readable(id));
    }

    @Override
    public <T> JsonCodec<T> codec(Class<T> entityClass) {
        return codecService.getCodec(entityClass);
    }

    @Override
    protected final void doExecute() {
        try {
            run();
        } catch (GroupException | IllegalArgumentException e) {
            error("Error: %s", e.getMessage());
        }
    }

    /** Does the command's work; a {@link GroupException} becomes a one-line error. */
    protected abstract void run();

    /**
     * Parses endpoints written as {@code host}, {@code host#qpn} or {@code host#qpn=N}.
     *
     * @param texts the arguments
     * @return the endpoints, in order
     * @throws GroupException INVALID on a malformed QPN or a repeated endpoint
     */
    static Set<Endpoint> endpoints(List<String> texts) {
        Set<Endpoint> out = new LinkedHashSet<>();
        for (String t : texts) {
            Endpoint e = endpoint(t);
            if (!out.add(e)) {
                throw GroupException.invalid("receiver " + e + " is listed more than once");
            }
        }
        return out;
    }

    /**
     * @param text {@code host}, {@code host#qpn} or {@code host#qpn=N}
     * @return the endpoint
     */
    static Endpoint endpoint(String text) {
        int hash = text.lastIndexOf('#');
        if (hash < 0) {
            return Endpoint.of(text);
        }
        String qpn = text.substring(hash + 1);
        qpn = qpn.startsWith("qpn=") ? qpn.substring(4) : qpn;
        try {
            return Endpoint.of(text.substring(0, hash), Integer.parseInt(qpn));
        } catch (NumberFormatException e) {
            throw GroupException.invalid("'" + text + "': the QPN after '#' must be a number");
        }
    }
}
