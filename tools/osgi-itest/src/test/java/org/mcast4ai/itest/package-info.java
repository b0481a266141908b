/**
 * OSGi wiring test of the mcast4ai bundles in Apache Felix with the real ONOS 2.7.0 api bundles.
 */
package org.mcast4ai.itest;
