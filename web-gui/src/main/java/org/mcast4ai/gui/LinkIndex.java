package org.mcast4ai.gui;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Link;
import org.onosproject.net.LinkKey;
import org.onosproject.net.link.LinkService;
import org.onosproject.ui.topo.BiLink;
import org.onosproject.ui.topo.BiLinkMap;
import org.onosproject.ui.topo.LinkHighlight;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * ONOS's links as the topology view draws them: both directions of a link are one line, known by the id of its
 * canonical direction ({@link BiLink#linkId()}); looked up by a directed link's two ends.
 */
final class LinkIndex {
    private final Map<String, Link> byEnds = new HashMap<>();
    private final Map<LinkKey, BiLink> lines = new HashMap<>();

    LinkIndex(LinkService links) {
        Pairs pairs = new Pairs();
        for (Link l : links.getLinks()) {
            lines.put(LinkKey.linkKey(l), pairs.add(l));
            byEnds.put(ends(l.src(), l.dst()), l);
        }
    }

    /**
     * @param from a directed link's source
     * @param to   its destination
     * @return the key of that directed link
     */
    static String ends(ConnectPoint from, ConnectPoint to) {
        return from + ">" + to;
    }

    /**
     * @param from a directed link's source
     * @param to   its destination
     * @return the link ONOS has between them in that direction, or null
     */
    Link link(ConnectPoint from, ConnectPoint to) {
        return byEnds.get(ends(from, to));
    }

    /**
     * @param l one of ONOS's links
     * @return the line the view draws for it (both directions)
     */
    BiLink line(Link l) {
        return lines.get(LinkKey.linkKey(l));
    }

    /** @return every line the view draws */
    Collection<BiLink> lines() {
        return new LinkedHashSet<>(lines.values());
    }

    /** Both directions of a link as one line of the view, with the id the GUI knows it by. */
    private static final class Pair extends BiLink {
        Pair(LinkKey key, Link link) {
            super(key, link);
        }

        @Override
        public LinkHighlight highlight(Enum<?> type) {
            return new LinkHighlight(linkId(), LinkHighlight.Flavor.NO_HIGHLIGHT);
        }
    }

    /** The links of the view, paired. */
    private static final class Pairs extends BiLinkMap<Pair> {
        @Override
        protected Pair create(LinkKey key, Link link) {
            return new Pair(key, link);
        }
    }
}
