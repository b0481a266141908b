/**
 * Checks of the built ONOS application archive (.oar).
 */
package org.mcast4ai.oar;
