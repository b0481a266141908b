package org.mcast4ai.cli;

import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroup;

import java.time.Instant;
import java.util.Collection;
import java.util.stream.Collectors;

/** Text forms shared by the commands. */
final class Format {

    private Format() {
    }

    /**
     * @param g a group
     * @return its one-line summary
     */
    static String summary(P2mpGroup g) {
        return String.format("id=%d key=%s job=%s state=%s mode=%s address=%s source=%s receivers=%d",
                g.id().value(), g.key(), g.request().jobId().isEmpty() ? "-" : g.request().jobId(), g.state(),
                mode(g), g.address(), g.request().source(), g.request().receivers().size());
    }

    /**
     * @param g a group
     * @return the effective mode, with the requested one when they differ
     */
    static String mode(P2mpGroup g) {
        return g.effectiveMode() == g.request().mode() ? g.effectiveMode().name()
                : g.effectiveMode() + "(requested " + g.request().mode() + ")";
    }

    /**
     * @param endpoints endpoints
     * @return them comma-separated, or "none"
     */
    static String endpoints(Collection<Endpoint> endpoints) {
        return endpoints.isEmpty() ? "none"
                : endpoints.stream().map(Endpoint::toString).collect(Collectors.joining(", "));
    }

    /**
     * @param millis ms since the epoch
     * @return ISO-8601 time
     */
    static String time(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }
}
