/**
 * ONOS GUI extension of mcast4ai: the groups table view and its message handler.
 */
package org.mcast4ai.gui;
