/**
 * Tests of the mcast4ai JSON codecs.
 */
package org.mcast4ai.codec;
