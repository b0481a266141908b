package org.mcast4ai.rest;

import org.mcast4ai.api.GroupException;

import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

/** Maps a refused request to its status: INVALID 400, NOT_FOUND 404, CONFLICT and LIMIT 409, FORBIDDEN 403. */
@Provider
public class GroupExceptionMapper implements ExceptionMapper<GroupException> {

    @Override
    public Response toResponse(GroupException e) {
        return ErrorBody.response(status(e.kind()), e.getMessage());
    }

    /**
     * @param kind why a request was refused
     * @return the HTTP status for it
     */
    static Response.Status status(GroupException.Kind kind) {
        switch (kind) {
            case NOT_FOUND:
                return Response.Status.NOT_FOUND;
            case CONFLICT:
            case LIMIT:
                return Response.Status.CONFLICT;
            case FORBIDDEN:
                return Response.Status.FORBIDDEN;
            case INVALID:
            default:
                return Response.Status.BAD_REQUEST;
        }
    }
}
