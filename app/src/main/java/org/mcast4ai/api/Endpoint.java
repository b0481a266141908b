package org.mcast4ai.api;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A host NIC as a user names it: an ONOS host id ({@code 00:00:00:00:00:01/None}), a MAC address or an
 * IP address, optionally with the RoCE queue pair number used on it. The app resolves the name through
 * ONOS HostService when it compiles the group. Immutable.
 */
public final class Endpoint {
    /** Largest RoCE queue pair number (24 bits). */
    public static final int MAX_QPN = 0xFFFFFF;

    private final String host;
    private final int qpn; // -1 when absent

    private Endpoint(String host, int qpn) {
        this.host = host;
        this.qpn = qpn;
    }

    /**
     * @param host host id, MAC or IP
     * @return an endpoint without a QPN
     */
    public static Endpoint of(String host) {
        return new Endpoint(checkHost(host), -1);
    }

    /**
     * @param host host id, MAC or IP
     * @param qpn  RoCE queue pair number, 2..2^24-1 (QP0 does not exist on RoCE and QP1 is the GSI's, never an
     *             RC connection's)
     * @return an endpoint with a QPN
     */
    public static Endpoint of(String host, int qpn) {
        if (qpn < MIN_QPN || qpn > MAX_QPN) {
            throw GroupException.invalid("qpn must be between " + MIN_QPN + " and " + MAX_QPN
                    + " (QP0 and QP1 are not RC queue pairs); got " + qpn);
        }
        return new Endpoint(checkHost(host), qpn);
    }

    /** The lowest QPN an RC queue pair can have. */
    public static final int MIN_QPN = 2;

    private static String checkHost(String host) {
        if (host == null || host.isBlank()) {
            throw GroupException.invalid("an endpoint needs a host (host id, MAC or IP)");
        }
        return host.trim();
    }

    /** @return the host as the user named it */
    public String host() {
        return host;
    }

    /** @return the RoCE QPN, if given */
    public OptionalInt qpn() {
        return qpn < 0 ? OptionalInt.empty() : OptionalInt.of(qpn);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Endpoint)) {
            return false;
        }
        Endpoint e = (Endpoint) o;
        return host.equals(e.host) && qpn == e.qpn;
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, qpn);
    }

    @Override
    public String toString() {
        return qpn < 0 ? host : host + "#qpn=" + qpn;
    }
}
