/**
 * Karaf commands for operators: list, show, create, change, withdraw and re-compile mcast4ai groups.
 */
package org.mcast4ai.cli;
