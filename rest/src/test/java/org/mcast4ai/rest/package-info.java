/**
 * Real-HTTP tests of the mcast4ai REST northbound.
 */
package org.mcast4ai.rest;
