/**
 * JSON codecs for the mcast4ai model, shared by the REST northbound, the CLI and the GUI, and the
 * component that registers them with the ONOS codec service.
 */
package org.mcast4ai.codec;
