/**
 * Flow rule helpers shared by the TREE and BITMAP programmers.
 */
package org.mcast4ai.impl.flow;
