/**
 * The mcast4ai scheduler client: {@link org.mcast4ai.client.Mcast4aiClient} (a library over the REST API with
 * only the JDK's HTTP client and Jackson) and {@code mcast4ai-client} ({@link org.mcast4ai.client.Main}).
 */
package org.mcast4ai.client;
