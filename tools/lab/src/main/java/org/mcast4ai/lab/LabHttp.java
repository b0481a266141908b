package org.mcast4ai.lab;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/** The lab tools' requests to the REST API: one way to build them (JSON body, credentials, a deadline). */
final class LabHttp {

    private LabHttp() {
    }

    /**
     * @param base          the API's base URI
     * @param method        HTTP method
     * @param path          path and query under the base
     * @param body          JSON body, or null
     * @param authorization the Authorization header, or null for none
     * @param timeout       how long the request may take
     * @return the request, ready to send
     */
    static HttpRequest.Builder request(URI base, String method, String path, String body, String authorization,
                                       Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }
}
