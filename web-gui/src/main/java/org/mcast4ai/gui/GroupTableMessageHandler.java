package org.mcast4ai.gui;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupService;
import org.onosproject.ui.RequestHandler;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.table.TableModel;
import org.onosproject.ui.table.TableRequestHandler;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Serves the read-only groups table: one row per group with its id, key, job, receiver count, mode and
 * state. The GUI's table builder (tag {@value #TABLE_TAG}) sends {@value #DATA_REQUEST} and reads the
 * rows from {@value #ROWS} of the response.
 */
public class GroupTableMessageHandler extends UiMessageHandler {

    static final String TABLE_TAG = "mcast4aiGroup";
    static final String DATA_REQUEST = TABLE_TAG + "DataRequest";
    static final String DATA_RESPONSE = TABLE_TAG + "DataResponse";
    static final String ROWS = TABLE_TAG + "s";

    static final String ID = "id";
    static final String TENANT = "tenant";
    static final String NAME = "name";
    static final String JOB = "job";
    static final String RECEIVERS = "receivers";
    static final String MODE = "mode";
    static final String STATE = "state";
    static final String ADDRESS = "address";

    private static final String[] COLUMNS = {ID, TENANT, NAME, JOB, RECEIVERS, MODE, STATE, ADDRESS};
    private static final String NO_ROWS = "No multicast groups";

    private final P2mpGroupService groups;

    /**
     * @param groups where the rows come from
     */
    public GroupTableMessageHandler(P2mpGroupService groups) {
        this.groups = Objects.requireNonNull(groups);
    }

    @Override
    protected Collection<RequestHandler> createRequestHandlers() {
        return List.of(new GroupTableHandler());
    }

    private final class GroupTableHandler extends TableRequestHandler {

        private GroupTableHandler() {
            super(DATA_REQUEST, DATA_RESPONSE, ROWS);
        }

        @Override
        protected String[] getColumnIds() {
            return COLUMNS.clone();
        }

        @Override
        protected String noRowsMessage(ObjectNode payload) {
            return NO_ROWS;
        }

        @Override
        protected void populateTable(TableModel tm, ObjectNode payload) {
            for (P2mpGroup g : groups.getGroups()) {
                // Numbers stay numbers so the table sorts ids and counts numerically.
                tm.addRow()
                        .cell(ID, g.id().value())
                        .cell(TENANT, g.key().tenant())
                        .cell(NAME, g.key().name())
                        .cell(JOB, g.request().jobId())
                        .cell(RECEIVERS, g.request().receivers().size())
                        .cell(MODE, g.effectiveMode())
                        .cell(STATE, g.state())
                        .cell(ADDRESS, g.address());
            }
        }
    }
}
