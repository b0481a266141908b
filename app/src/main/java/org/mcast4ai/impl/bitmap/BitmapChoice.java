package org.mcast4ai.impl.bitmap;

import org.mcast4ai.api.ReplicationMode;

import java.util.Objects;

/**
 * The mode a group gets and why: TREE as asked; BITMAP as asked if the pipeline and the fabric allow it
 * (otherwise the group fails with the reason: a BITMAP request is never silently served by a tree); AUTO
 * picks BITMAP when the pipeline is OpenFlow and the fabric and the group fit, TREE otherwise, saying why.
 */
public final class BitmapChoice {
    private final ReplicationMode mode;
    private final String reason;
    private final String failure;

    private BitmapChoice(ReplicationMode mode, String reason, String failure) {
        this.mode = mode;
        this.reason = reason;
        this.failure = failure;
    }

    /**
     * @param requested the group's requested mode
     * @param openFlow  true if the fabric's switches run the OpenFlow pipeline
     * @param compiled  the group compiled for BITMAP (null if not compiled)
     * @return the choice
     */
    public static BitmapChoice decide(ReplicationMode requested, boolean openFlow, BitmapStamp.Result compiled) {
        Objects.requireNonNull(requested);
        if (requested == ReplicationMode.TREE) {
            return new BitmapChoice(ReplicationMode.TREE, "", null);
        }
        String whyNot = !openFlow ? "the switches do not run the OpenFlow pipeline"
                : compiled == null ? "the group was not compiled for BITMAP"
                : compiled.stamp() == null ? compiled.failure() : null;
        if (requested == ReplicationMode.BITMAP) {
            return whyNot == null ? new BitmapChoice(ReplicationMode.BITMAP, "", null)
                    : new BitmapChoice(ReplicationMode.BITMAP, "", "BITMAP replication is not possible: " + whyNot);
        }
        if (whyNot == null) {
            return new BitmapChoice(ReplicationMode.BITMAP, "AUTO chose BITMAP: the receivers fit the "
                    + EthSrcBitmap.CAPACITY + "-bit Ethernet source bitmap, so only the source leaf holds an "
                    + "entry for the group", null);
        }
        return new BitmapChoice(ReplicationMode.TREE, "AUTO chose TREE: " + whyNot, null);
    }

    /**
     * AUTO's choice of TREE for a reason found outside the group's compilation (for example switches that do
     * not hold the static BITMAP tables yet).
     *
     * @param why why not BITMAP
     * @return TREE, with "AUTO chose TREE: " and the reason
     */
    public static BitmapChoice autoTree(String why) {
        return new BitmapChoice(ReplicationMode.TREE, "AUTO chose TREE: " + why, null);
    }

    /**
     * BITMAP on the P4 fabric: as asked, or AUTO's choice with the reason.
     *
     * @param requested the group's requested mode (BITMAP or AUTO)
     * @param why       what the switches do for it
     * @return BITMAP
     */
    public static BitmapChoice p4(ReplicationMode requested, String why) {
        return new BitmapChoice(ReplicationMode.BITMAP, requested == ReplicationMode.AUTO ? "AUTO chose BITMAP: "
                + why : "", null);
    }

    /**
     * A group the P4 fabric cannot serve: it fails with the reason (never a silent other mode).
     *
     * @param requested the group's requested mode
     * @param why       why not
     * @return the requested mode (AUTO: BITMAP), failed
     */
    public static BitmapChoice p4Failure(ReplicationMode requested, String why) {
        return new BitmapChoice(requested == ReplicationMode.TREE ? ReplicationMode.TREE : ReplicationMode.BITMAP,
                "", why);
    }

    /** @return the effective mode */
    public ReplicationMode mode() {
        return mode;
    }

    /** @return the reason to record with the effective mode (empty when the mode was asked for) */
    public String reason() {
        return reason;
    }

    /** @return why the group must fail, or null */
    public String failure() {
        return failure;
    }
}
