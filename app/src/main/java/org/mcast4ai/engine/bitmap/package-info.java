/**
 * The stateless bitmap data plane, as a pure library: stable bit indices for receiver positions
 * ({@link org.mcast4ai.engine.bitmap.BitIndexTable}), the hierarchical header and its codec
 * ({@link org.mcast4ai.engine.bitmap.HeaderV2Codec}), the per-group header planner, the static per-switch
 * replication tables and a simulator that applies the per-hop (BIER F-BM) semantics exactly as a switch would.
 * The byte layout is specified in {@code models/header/README.md}.
 */
package org.mcast4ai.engine.bitmap;
