/**
 * The tree and bitmap engine: a pure library over an immutable fabric snapshot. No ONOS service, no I/O,
 * no clock: fast, deterministic and testable on its own.
 */
package org.mcast4ai.engine;
