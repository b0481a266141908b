/**
 * The mcast4ai REST northbound, served by ONOS under {@code /onos/mcast4ai}.
 */
package org.mcast4ai.rest;
