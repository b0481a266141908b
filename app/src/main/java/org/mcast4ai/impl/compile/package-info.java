/** From a group and a fabric snapshot to the entries it should have: trees, the BITMAP decision, the compile step. */
package org.mcast4ai.impl.compile;
