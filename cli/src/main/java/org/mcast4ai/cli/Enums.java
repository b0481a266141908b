package org.mcast4ai.cli;

import org.mcast4ai.api.GroupException;

import java.util.Arrays;
import java.util.Locale;

/** Case-insensitive enum arguments with a clear error. */
final class Enums {

    private Enums() {
    }

    /**
     * @param type enum type
     * @param text the argument
     * @param what the option, for the message
     * @param <E>  enum type
     * @return the constant
     */
    static <E extends Enum<E>> E parse(Class<E> type, String text, String what) {
        try {
            return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw GroupException.invalid(what + " must be one of " + Arrays.toString(type.getEnumConstants())
                    + "; got '" + text + "'");
        }
    }
}
