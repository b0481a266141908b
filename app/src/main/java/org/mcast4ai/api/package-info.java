/**
 * The mcast4ai northbound API: the P2MP group model, the group service and its events.
 */
package org.mcast4ai.api;
