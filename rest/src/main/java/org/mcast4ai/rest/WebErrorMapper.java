package org.mcast4ai.rest;

import javax.ws.rs.NotSupportedException;
import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

/**
 * Gives JAX-RS's own refusals (unknown path 404, wrong method 405, wrong content type 415, ...) the API's
 * JSON error body, keeping their status and headers (such as Allow).
 */
@Provider
public class WebErrorMapper implements ExceptionMapper<WebApplicationException> {

    @Override
    public Response toResponse(WebApplicationException e) {
        Response r = e.getResponse();
        if (r.hasEntity()) {
            return r;
        }
        String message = e instanceof NotSupportedException
                ? "the request body must be JSON, sent with Content-Type: application/json" : e.getMessage();
        return Response.fromResponse(r).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(ErrorBody.json(r.getStatus(), message, r.getStatusInfo().getReasonPhrase())).build();
    }
}
