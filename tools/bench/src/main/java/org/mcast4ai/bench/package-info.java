/**
 * The engine benchmark: compiles trees and bitmap headers on fat trees and compares them, in the same run,
 * with unicast, a re-implementation of Trellis's multicast path selection and a flat BIER bitstring.
 */
package org.mcast4ai.bench;
