/**
 * The ONOS-facing core of mcast4ai: the group manager, its distributed store, the fabric snapshot
 * factory, the group compiler and the OpenFlow tree programmer. Private to the bundle.
 */
package org.mcast4ai.impl;
