package org.mcast4ai.rest;

import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

/** Maps an {@link IllegalArgumentException} (invalid input caught below the API) to 400. */
@Provider
public class InvalidArgumentMapper implements ExceptionMapper<IllegalArgumentException> {

    @Override
    public Response toResponse(IllegalArgumentException e) {
        return ErrorBody.response(Response.Status.BAD_REQUEST, e.getMessage());
    }
}
