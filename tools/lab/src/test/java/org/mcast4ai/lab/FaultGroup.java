package org.mcast4ai.lab;

import java.util.List;

/** A group under test. */
final class FaultGroup {
    final String name;
    final String mode;
    final String source;
    final List<String> members;
    long id;
    String address;

    FaultGroup(String name, String mode, String source, List<String> members) {
        this.name = name;
        this.mode = mode;
        this.source = source;
        this.members = members;
    }
}
