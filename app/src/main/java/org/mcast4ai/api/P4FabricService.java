package org.mcast4ai.api;

/** The P4 fabric loop, as operators see it: what it programs and whether it can. */
public interface P4FabricService {

    /** @return what the loop last did on this instance */
    P4FabricStatus status();
}
