/**
 * The inbox guard for NATS JetStream: {@link dev.relayer.inbox.nats.NatsInbox}. Needs {@code
 * io.nats:jnats} on the class path.
 */
@NullMarked
package dev.relayer.inbox.nats;

import org.jspecify.annotations.NullMarked;
