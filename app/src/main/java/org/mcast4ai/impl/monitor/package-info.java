/** Which groups a device, link or host event concerns: the topology index and the event monitor. */
package org.mcast4ai.impl.monitor;
