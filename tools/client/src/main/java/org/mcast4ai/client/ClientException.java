package org.mcast4ai.client;

/**
 * A call that did not succeed: the API refused it (its status and message), the controller could not be
 * reached, or a wait ended without the state asked for.
 */
public class ClientException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why the call did not succeed; each has its own exit status in the command. */
    public enum Reason {
        /** The API answered 4xx or 5xx. */
        REFUSED(1),
        /** The group is FAILED. */
        FAILED(3),
        /** The group is DEGRADED: some receivers cannot be reached. */
        DEGRADED(4),
        /** The state asked for was not reached in time. */
        TIMEOUT(5),
        /** The controller could not be reached or answered something that is not the API. */
        UNREACHABLE(6);

        private final int exitStatus;

        Reason(int exitStatus) {
            this.exitStatus = exitStatus;
        }

        /** @return the command's exit status for this reason */
        public int exitStatus() {
            return exitStatus;
        }
    }

    private final Reason reason;
    private final int status;

    /**
     * @param reason  why
     * @param status  the HTTP status, or 0
     * @param message what the API or the client says
     */
    public ClientException(Reason reason, int status, String message) {
        super(message);
        this.reason = reason;
        this.status = status;
    }

    /** @return why the call did not succeed */
    public Reason reason() {
        return reason;
    }

    /** @return the HTTP status of a refusal, 0 otherwise */
    public int status() {
        return status;
    }
}
