/**
 * Inbox-guarded listeners for Spring: {@link dev.relayer.spring.boot.inbox.InboxGuarded} on a
 * {@code @RabbitListener} or {@code @KafkaListener} method, and {@link
 * dev.relayer.spring.boot.inbox.RelayerInbox} for listeners Spring has no container for (NATS
 * JetStream). Active when the application has {@code relayer-inbox}; see {@code docs/consuming.md}.
 */
@NullMarked
package dev.relayer.spring.boot.inbox;

import org.jspecify.annotations.NullMarked;
