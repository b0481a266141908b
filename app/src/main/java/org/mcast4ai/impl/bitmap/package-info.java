/**
 * Stateless BITMAP replication for OpenFlow 1.3 switches (Open vSwitch) on small fabrics: the receiver set
 * travels in the Ethernet source address ({@link org.mcast4ai.impl.bitmap.EthSrcBitmap}), every switch holds
 * static replication tables derived from the fabric alone ({@link org.mcast4ai.impl.bitmap.BitmapLayout},
 * {@link org.mcast4ai.impl.bitmap.BitmapPlanner}) and only the source leaf holds per-group entries
 * ({@link org.mcast4ai.impl.bitmap.BitmapStamp}). {@link org.mcast4ai.impl.bitmap.OpenFlowBitmapProgrammer}
 * installs both through ONOS's FlowRuleService and GroupService.
 */
package org.mcast4ai.impl.bitmap;
