package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/** The one error shape of the API: {@code {"code": 404, "message": "no group 7"}}. */
final class ErrorBody {

    private ErrorBody() {
    }

    /**
     * @param status  HTTP status
     * @param message what is wrong
     * @return the error response
     */
    static Response response(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(json(status.getStatusCode(), message, status.getReasonPhrase())).build();
    }

    /**
     * @param code     HTTP status code
     * @param message  what is wrong
     * @param fallback message when there is none
     * @return the error body as JSON text
     */
    static String json(int code, String message, String fallback) {
        return JsonNodeFactory.instance.objectNode()
                .put("code", code)
                .put("message", message == null || message.isBlank() ? fallback : message)
                .toString();
    }
}
