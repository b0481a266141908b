/** The shared doubles of ONOS services for the app's, the REST and CLI modules' tests and the benchmarks. */
package org.mcast4ai.testing;
