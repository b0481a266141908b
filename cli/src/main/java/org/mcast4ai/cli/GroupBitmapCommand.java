package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.P2mpGroupId;

/**
 * Shows a BITMAP group's bit map: each receiver's bit, the group's bits and the source MAC that addresses
 * the whole group. A sender addresses a subset by sending with the stamp of the OR of the subset's bits.
 */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-bitmap",
        description = "Shows the bit map of a BITMAP P2MP group: receiver bits and the group's stamp MAC")
public class GroupBitmapCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        GroupBitmap b = groupService.getBitmap(gid);
        if (outputJson()) {
            print("%s", jsonForEntity(b, GroupBitmap.class));
            return;
        }
        printBitmap(this, b);
    }

    /**
     * Prints a bit map in the text form shared with {@code mcast4ai-group}.
     *
     * @param c the command printing
     * @param b the bit map
     */
    static void printBitmap(Mcast4aiCommand c, GroupBitmap b) {
        c.print("bitmap: carrier=%s groupBits=0x%s stampMac=%s", b.carrier(), Long.toHexString(b.groupBits()),
                b.stampMac());
        b.receiverBits().forEach((receiver, bit) -> c.print("  bit %d %s", bit, receiver.host()
                + (receiver.qpn().isPresent() ? " qpn " + receiver.qpn().getAsInt() : "")));
    }
}
