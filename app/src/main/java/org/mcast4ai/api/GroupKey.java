package org.mcast4ai.api;

import java.util.Objects;
import java.util.regex.Pattern;

/** A group's user-chosen, unique key: tenant plus name. Immutable. */
public final class GroupKey {
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");

    private final String tenant;
    private final String name;

    private GroupKey(String tenant, String name) {
        this.tenant = tenant;
        this.name = name;
    }

    /**
     * Creates a key.
     *
     * @param tenant tenant, 1-64 characters of letters, digits, '.', '_', ':' or '-'
     * @param name   group name, same alphabet
     * @return the key
     * @throws GroupException INVALID if either part is malformed
     */
    public static GroupKey of(String tenant, String name) {
        check("tenant", tenant);
        check("name", name);
        return new GroupKey(tenant, name);
    }

    private static void check(String what, String value) {
        if (value == null || !TOKEN.matcher(value).matches()) {
            throw GroupException.invalid(what + " must be 1-64 characters of letters, digits, '.', '_', "
                    + "':' or '-', starting with a letter or digit; got "
                    + (value == null ? "nothing" : "'" + value + "'"));
        }
    }

    /** @return the tenant */
    public String tenant() {
        return tenant;
    }

    /** @return the name within the tenant */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GroupKey)) {
            return false;
        }
        GroupKey k = (GroupKey) o;
        return tenant.equals(k.tenant) && name.equals(k.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tenant, name);
    }

    @Override
    public String toString() {
        return tenant + "/" + name;
    }
}
