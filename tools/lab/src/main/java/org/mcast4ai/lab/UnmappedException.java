package org.mcast4ai.lab;

/**
 * A flow rule or group that the lab cannot express in {@code ovs-ofctl} syntax, or that the
 * switch would reject before it reaches it (e.g. a masked value with bits outside its mask).
 */
public class UnmappedException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is not mapped, and where
     */
    public UnmappedException(String message) {
        super(message);
    }
}
