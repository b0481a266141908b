/**
 * The Open vSwitch lab runner: hosts the mcast4ai components outside ONOS, with ONOS services
 * backed by a lab fabric of real Open vSwitch bridges, and serves the mcast4ai REST API.
 */
package org.mcast4ai.lab;
