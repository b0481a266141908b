/**
 * The programmer seam: what a group holds on each device ({@link org.mcast4ai.impl.program.DeviceEntry}),
 * the one stored record of it per group ({@link org.mcast4ai.impl.program.Programmed}), and the
 * {@link org.mcast4ai.impl.program.Programmer}s that write one kind of entry each. The reconcile loop diffs
 * desired entries against the record and hands each programmer its moves; it knows no replication mode.
 */
package org.mcast4ai.impl.program;
