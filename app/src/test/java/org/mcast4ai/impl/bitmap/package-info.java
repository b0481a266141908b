/**
 * Tests of the OpenFlow BITMAP planner and programmer.
 */
package org.mcast4ai.impl.bitmap;
