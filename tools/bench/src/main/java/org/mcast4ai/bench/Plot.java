package org.mcast4ai.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A small log-log line chart rendered with Java2D into a PNG. */
final class Plot {
    private static final int W = 900;
    private static final int H = 560;
    private static final int L = 110;
    private static final int R = 230;
    private static final int T = 50;
    private static final int B = 70;

    /** One line of the chart. */
    static final class Series {
        final String name;
        final Color color;
        final boolean dashed;
        final List<double[]> points = new ArrayList<>();

        Series(String name, Color color, boolean dashed) {
            this.name = name;
            this.color = color;
            this.dashed = dashed;
        }
    }

    private Plot() {
    }

    static void write(File file, String title, String xLabel, String yLabel, List<Series> series)
            throws IOException {
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (Series s : series) {
            for (double[] p : s.points) {
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
                minY = Math.min(minY, p[1]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        double lx0 = Math.floor(Math.log10(minX));
        double lx1 = Math.ceil(Math.log10(maxX));
        double ly0 = Math.floor(Math.log10(minY));
        double ly1 = Math.ceil(Math.log10(maxY));
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.setColor(new Color(225, 225, 225));
        for (double d = lx0; d <= lx1; d++) {
            int x = px(d, lx0, lx1);
            g.drawLine(x, T, x, H - B);
        }
        for (double d = ly0; d <= ly1; d++) {
            int y = py(d, ly0, ly1);
            g.drawLine(L, y, W - R, y);
        }
        g.setColor(Color.BLACK);
        g.drawRect(L, T, W - L - R, H - T - B);
        for (double d = lx0; d <= lx1; d++) {
            g.drawString(String.format("%,.0f", Math.pow(10, d)), px(d, lx0, lx1) - 12, H - B + 18);
        }
        for (double d = ly0; d <= ly1; d++) {
            g.drawString(human(Math.pow(10, d)), L - 60, py(d, ly0, ly1) + 5);
        }
        g.drawString(xLabel, L + (W - L - R) / 2 - 60, H - 25);
        g.drawString(yLabel, 10, T - 15);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, L, 25);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        int legendY = T + 10;
        for (Series s : series) {
            g.setColor(s.color);
            g.setStroke(s.dashed ? new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[]{8f, 6f}, 0f) : new BasicStroke(2.5f));
            int prevX = -1;
            int prevY = -1;
            for (double[] p : s.points) {
                int x = px(Math.log10(p[0]), lx0, lx1);
                int y = py(Math.log10(p[1]), ly0, ly1);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, x, y);
                }
                g.fillOval(x - 4, y - 4, 8, 8);
                prevX = x;
                prevY = y;
            }
            g.drawLine(W - R + 15, legendY, W - R + 45, legendY);
            g.setColor(Color.BLACK);
            g.drawString(s.name, W - R + 52, legendY + 5);
            legendY += 24;
        }
        g.dispose();
        ImageIO.write(img, "png", file);
    }

    private static int px(double lx, double lx0, double lx1) {
        return L + (int) Math.round((lx - lx0) / (lx1 - lx0) * (W - L - R));
    }

    private static int py(double ly, double ly0, double ly1) {
        return H - B - (int) Math.round((ly - ly0) / (ly1 - ly0) * (H - T - B));
    }

    private static String human(double v) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int u = 0;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format("%.0f %s", v, units[u]);
    }
}
