/**
 * Tests of the mcast4ai Karaf commands against an in-memory group service.
 */
package org.mcast4ai.cli;
