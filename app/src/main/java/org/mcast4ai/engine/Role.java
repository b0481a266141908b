package org.mcast4ai.engine;

/** A switch's layer in a Clos fabric. */
public enum Role {
    /** Top-of-rack: hosts attach here. */
    LEAF,
    /** Aggregation / spine layer. */
    SPINE,
    /** Core / super-spine layer. */
    SUPER_SPINE
}
