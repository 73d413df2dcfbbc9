package dev.relayer.dispatch.internal;

import dev.relayer.store.pass.Passes;
import java.time.Clock;

/**
 * The parts of one dispatcher that its delivering components (direct dispatch, the sweeper, lane
 * workers) are built from: each takes the ones it uses into fields of its own. The dispatcher
 * creates them once, and closes the {@link #sender()} when it closes.
 *
 * @param store the store's display name, for thread names and log lines
 * @param passes where the components start their passes
 * @param clock the clock claims and retry times are computed with
 * @param events the event listeners
 * @param sender sends claimed rows to their transports
 * @param outcomes writes what the sends did
 * @param handoffs hand-offs dropped, and rows the sweeper delivered without one
 */
public record Delivery(
    String store,
    Passes passes,
    Clock clock,
    Events events,
    Sender sender,
    OutcomeWriter outcomes,
    HandoffWatch handoffs) {}
