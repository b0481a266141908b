/**
 * The shared doubles of ONOS services (flow rules, groups, and the device, link and host services of a leaf-spine
 * fabric) for the app's, the REST and CLI modules' tests, the OSGi wiring test's fixture bundle and the benchmarks.
 */
package org.mcast4ai.testing;
