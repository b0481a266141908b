package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.model.topo.UiTopoLayout;

import java.util.ArrayList;
import java.util.List;

/** Records what a message handler sends, in the shape the GUI's web socket gets it. */
final class RecordingConnection implements UiConnection {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<ObjectNode> sent = new ArrayList<>();
    private final String view;

    RecordingConnection(String view) {
        this.view = view;
    }

    /** @return every message so far, oldest first */
    synchronized List<ObjectNode> sent() {
        return new ArrayList<>(sent);
    }

    /** Forgets the messages so far. */
    synchronized void clear() {
        sent.clear();
    }

    @Override
    public String userName() {
        return "test";
    }

    @Override
    public UiTopoLayout currentLayout() {
        return null;
    }

    @Override
    public void setCurrentLayout(UiTopoLayout topoLayout) {
    }

    @Override
    public String currentView() {
        return view;
    }

    @Override
    public void setCurrentView(String viewId) {
    }

    @Override
    public synchronized void sendMessage(ObjectNode message) {
        sent.add(message);
    }

    @Override
    public synchronized void sendMessage(String type, ObjectNode payload) {
        ObjectNode message = MAPPER.createObjectNode();
        message.put("event", type);
        message.set("payload", payload);
        sent.add(message);
    }
}
