package dev.relayer.dispatch;

/**
 * Counters of one {@link RelayerLanes} instance since it was created, for metrics and tests. A pass
 * serves every lane that was ready to run when it started, and counts once, under the reason of the
 * lane it was started for.
 *
 * @param wakeupPasses passes started because a commit in this process or a notification named the
 *     lane (or the listening connection was opened again)
 * @param continuePasses passes started right after a pass that sent rows or left some unsent
 * @param duePasses passes started when the lane's earliest schedule or retry hold ended
 * @param pollPasses passes started by the poll interval alone
 * @param acquirePasses passes started to take a newly assigned lane or one whose lease was held
 *     elsewhere
 * @param renewPasses lease renewals of idle lanes (no claim)
 * @param notifications notifications received on the store's lane channel
 * @param listenConnects how many times the listening connection was opened and subscribed
 */
public record LaneStats(
    long wakeupPasses,
    long continuePasses,
    long duePasses,
    long pollPasses,
    long acquirePasses,
    long renewPasses,
    long notifications,
    long listenConnects) {}
