/** The fabric as the app sees it: immutable snapshots of ONOS's devices, links and hosts, and host resolution. */
package org.mcast4ai.impl.fabric;
