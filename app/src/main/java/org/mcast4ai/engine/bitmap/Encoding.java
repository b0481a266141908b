package org.mcast4ai.engine.bitmap;

/** How a header body carries its receiver set; the code is the low nibble of the header's first byte. */
public enum Encoding {
    /** Explicit ascending list of 16-bit bit indices: cheapest for sparse groups. */
    LIST(1),
    /** Pod bitmap, then per pod a section of leaf bitmaps and per-leaf slot bitmaps: dense, spread groups. */
    FABRIC(2),
    /** One pod's section: what a pod receives from above. */
    POD(3),
    /** One leaf's slot bitmap (none for a whole rack): what a leaf receives from its spine. */
    LEAF(4);

    private final int code;

    Encoding(int code) {
        this.code = code;
    }

    /** @return the 4-bit code on the wire */
    public int code() {
        return code;
    }

    /**
     * @param code a 4-bit code
     * @return the encoding, or null if unknown
     */
    public static Encoding ofCode(int code) {
        for (Encoding e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
