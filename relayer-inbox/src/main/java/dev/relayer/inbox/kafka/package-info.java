/**
 * The inbox guard for the Kafka consumer: {@link dev.relayer.inbox.kafka.KafkaInbox}. Needs {@code
 * org.apache.kafka:kafka-clients} on the class path.
 */
@NullMarked
package dev.relayer.inbox.kafka;

import org.jspecify.annotations.NullMarked;
