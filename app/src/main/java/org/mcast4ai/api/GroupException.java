package org.mcast4ai.api;

/**
 * A request the group service refuses. The kind maps to an HTTP status in REST and to an error line in the
 * CLI; the message says what is wrong in terms the caller can act on. A refused request never changes
 * existing groups.
 */
public class GroupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a request was refused. */
    public enum Kind {
        /** Malformed or inconsistent input (HTTP 400). */
        INVALID,
        /** No such group (HTTP 404). */
        NOT_FOUND,
        /** Conflicts with existing state: duplicate key, wrong state (HTTP 409). */
        CONFLICT,
        /** A configured limit or the address pool is exhausted (HTTP 409 with the limit named). */
        LIMIT,
        /** The caller may read the group but not change it, or may not use the tenant it names (HTTP 403). */
        FORBIDDEN
    }

    private final Kind kind;

    /**
     * @param kind    why
     * @param message what is wrong
     */
    public GroupException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** @return why the request was refused */
    public Kind kind() {
        return kind;
    }

    /**
     * @param message what is wrong
     * @return an INVALID exception
     */
    public static GroupException invalid(String message) {
        return new GroupException(Kind.INVALID, message);
    }

    /**
     * @param id the missing group
     * @return a NOT_FOUND exception
     */
    public static GroupException notFound(Object id) {
        return new GroupException(Kind.NOT_FOUND, "no group " + id);
    }

    /**
     * @param message what conflicts
     * @return a CONFLICT exception
     */
    public static GroupException conflict(String message) {
        return new GroupException(Kind.CONFLICT, message);
    }

    /**
     * @param key    the tenant and name asked for
     * @param holder the group that holds them, or null if it is being created or purged right now
     * @return a CONFLICT naming the holder, its state and how to free the name
     */
    public static GroupException keyTaken(GroupKey key, P2mpGroup holder) {
        if (holder == null) {
            return conflict("a group with key " + key + " already exists (being created or purged); try again");
        }
        String way = holder.state() == GroupState.WITHDRAWN ? "purge it" : "withdraw and purge it";
        return conflict("a group with key " + key + " already exists: group " + holder.id() + ", " + holder.state()
                + "; " + way + " (DELETE groups/" + holder.id() + "?purge=true) to free the name");
    }

    /**
     * @param message which limit
     * @return a LIMIT exception
     */
    public static GroupException limit(String message) {
        return new GroupException(Kind.LIMIT, message);
    }

    /**
     * @param message which rule the caller does not meet
     * @return a FORBIDDEN refusal
     */
    public static GroupException forbidden(String message) {
        return new GroupException(Kind.FORBIDDEN, message);
    }
}
