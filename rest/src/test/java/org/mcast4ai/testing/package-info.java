/**
 * Test doubles of the mcast4ai services, shared by the REST and CLI tests through the test jar.
 */
package org.mcast4ai.testing;
