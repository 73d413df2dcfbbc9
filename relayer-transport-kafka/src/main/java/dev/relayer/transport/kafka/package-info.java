/**
 * Kafka transport: {@link dev.relayer.transport.kafka.KafkaTransport}.
 *
 * <h2>Records</h2>
 *
 * A row's destination is the topic. Each message becomes one record: key = the ordering key ({@code
 * null} for an unordered message, so the producer's partitioner spreads those), value = the body,
 * headers = the message's headers (UTF-8) plus {@code relayer-message-id} (the message id), {@code
 * relayer-message-type} and, for a message with a tenant, {@code relayer-tenant-id}. Records with
 * the same ordering key land in the same partition. An illegal topic name rejects the whole batch
 * for good with {@link dev.relayer.api.InvalidInputException}, and {@link
 * dev.relayer.transport.kafka.KafkaTransport#problems} reports it, so that a dispatcher refuses
 * such messages at enqueue.
 *
 * <h2>What a batch does</h2>
 *
 * The batch's records are handed to one idempotent producer ({@code enable.idempotence=true},
 * {@code acks=all}) configured from the user's {@link java.util.Properties}, and each record's
 * result is awaited until the batch timeout:
 *
 * <ul>
 *   <li>acknowledged by the partition leader after the in-sync replicas have it: accepted;
 *   <li>refused: on its own, with Kafka's error — rejected for good when Kafka will never take the
 *       record ({@code RecordTooLargeException}: over {@code max.request.size} or the topic's
 *       {@code max.message.bytes}; {@code InvalidRecordException}, for example no key on a
 *       compacted topic, where the broker refuses the whole produce request and the records that
 *       shared it fail, to be retried), failed otherwise (for example not authorized);
 *   <li>no acknowledgement before the timeout: failed. The producer keeps the record until {@code
 *       delivery.timeout.ms} and may still write it, so it can be delivered twice — delivery is at
 *       least once, and consumers deduplicate on {@code relayer-message-id}.
 * </ul>
 *
 * The idempotent producer keeps accepted records of a partition in order and writes no duplicates
 * on its own retries. Even so, {@link
 * dev.relayer.transport.kafka.KafkaTransport#preservesBatchOrder()} is {@code false} by default:
 * records are in flight together, so a record after a rejected one may already be written. Built
 * with {@code orderedBatches(true)}, the transport hands over one record at a time, waits for its
 * acknowledgement, stops at the first failure (the rest are reported failed and not sent) and
 * declares batch order.
 *
 * <h2>When the cluster is down</h2>
 *
 * Kafka's client does not say "down": it waits. {@code KafkaProducer.send} blocks while it has no
 * metadata for the topic (at most {@code max.block.ms}), so the transport hands records to the
 * producer on a sender thread of its own and interrupts it when the batch timeout passes; records
 * it could not hand over, and records that were not acknowledged in time, fail with an error naming
 * {@code bootstrap.servers}. A batch never outlasts its timeout. Set {@code max.block.ms} below the
 * batch timeout to have a missing topic fail sooner. Once the cluster is back, the producer
 * reconnects on its own and later batches succeed. {@code close()} flushes the records the producer
 * still holds, for at most {@code closeTimeout}.
 */
@NullMarked
package dev.relayer.transport.kafka;

import org.jspecify.annotations.NullMarked;
