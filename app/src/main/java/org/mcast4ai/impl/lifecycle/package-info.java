/** The reconcile loop and its scheduling: lanes, installs and withdrawals, audits, takeovers, the orphan sweep. */
package org.mcast4ai.impl.lifecycle;
