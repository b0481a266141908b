package org.mcast4ai.api;

/**
 * Quotes client input in error messages safely: control characters, lone surrogates and anything outside
 * printable ASCII become {@code \\uXXXX}, and long input is cut, so that a refusal never carries bytes that
 * break a log line or a strict JSON client.
 */
public final class Printable {
    private static final int MAX = 64;

    private Printable() {
    }

    /**
     * @param text client input, or null
     * @return a printable, bounded rendering of it
     */
    public static String of(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < MAX; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        if (b.length() >= MAX && text.length() > MAX) {
            b.append("... (").append(text.length()).append(" characters)");
        }
        return b.toString();
    }
}
