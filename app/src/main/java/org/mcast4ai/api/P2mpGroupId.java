package org.mcast4ai.api;

/** The app-assigned identifier of a group, unique in the cluster and never reused. Immutable. */
public final class P2mpGroupId implements Comparable<P2mpGroupId> {
    private final long value;

    private P2mpGroupId(long value) {
        this.value = value;
    }

    /**
     * @param value a positive id
     * @return the id
     */
    public static P2mpGroupId of(long value) {
        if (value <= 0) {
            throw GroupException.invalid("group id must be a positive integer; got " + value);
        }
        return new P2mpGroupId(value);
    }

    /**
     * Parses the decimal form used in REST paths and CLI arguments.
     *
     * @param text decimal id
     * @return the id
     * @throws GroupException INVALID if the text is not a positive integer
     */
    public static P2mpGroupId parse(String text) {
        // canonical decimal only: "01", "+1", "1 " or "1%00" must not all name group 1
        if (text != null && CANONICAL.matcher(text).matches()) {
            try {
                return of(Long.parseLong(text));
            } catch (NumberFormatException e) {
                // beyond a long: refused below
            }
        }
        throw GroupException.invalid("group id must be a positive integer in canonical decimal (no sign, spaces "
                + "or leading zeros); got '" + Printable.of(text) + "'");
    }

    private static final java.util.regex.Pattern CANONICAL = java.util.regex.Pattern.compile("[1-9][0-9]{0,18}");

    /** @return the numeric value */
    public long value() {
        return value;
    }

    @Override
    public int compareTo(P2mpGroupId o) {
        return Long.compare(value, o.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof P2mpGroupId && ((P2mpGroupId) o).value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
