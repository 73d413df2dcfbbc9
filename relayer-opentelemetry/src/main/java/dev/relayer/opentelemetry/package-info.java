/**
 * Tracing with the OpenTelemetry API: one trace from the span that wrote a message, through the
 * outbox table, to the broker and the consumer, across processes and restarts. The entry point is
 * {@link dev.relayer.opentelemetry.RelayerTracing}; this module needs the OpenTelemetry API only
 * (the application brings the SDK, or an agent), and Relayer's other modules do not need this one.
 *
 * <h2>The path of a trace</h2>
 *
 * <ol>
 *   <li><b>Enqueue.</b> {@link dev.relayer.opentelemetry.RelayerTracing#install} registers a {@link
 *       dev.relayer.store.HeaderContributor} on the store. When a valid span is current on the
 *       writing thread and the message has no {@code traceparent} (more exactly: none of the trace
 *       propagator's fields), it writes the span's W3C {@code traceparent}, its {@code tracestate}
 *       when not empty, and — only with {@code baggage(true)} — the W3C {@code baggage} header into
 *       the message's headers, which the row stores in its {@code headers} column. No span current:
 *       nothing is written. A message with its own {@code traceparent} keeps it, and nothing else
 *       is added to it.
 *   <li><b>Send.</b> {@link dev.relayer.opentelemetry.TracingTransport} (from {@link
 *       dev.relayer.opentelemetry.RelayerTracing#transport}) wraps any transport. For each message
 *       of a batch it reads the stored context from the row's headers — whichever process and
 *       instance wrote it, however long ago — and starts a {@code PRODUCER} span {@code send
 *       <destination>} with that parent (a message without a stored context starts a new trace),
 *       then sends the message with the producer span's {@code traceparent} and {@code tracestate}
 *       in place of the stored ones. The span ends with the message's result.
 *   <li><b>Broker.</b> Each transport carries the headers in its broker's native form, as strings:
 *       AMQP message headers (RabbitMQ), record headers as UTF-8 bytes (Kafka), message headers
 *       (NATS JetStream). The transport contract suite checks, with a real consumer of each broker,
 *       that {@code traceparent} and {@code tracestate} arrive unchanged.
 *   <li><b>Consume.</b> {@link dev.relayer.opentelemetry.TracedInbox} (from {@link
 *       dev.relayer.opentelemetry.RelayerTracing#inbox}) turns the received headers back into a
 *       context and records the message in the inbox under a {@code CONSUMER} span {@code process
 *       <destination>} whose parent is the producer span, current while the handler runs. Build its
 *       {@link dev.relayer.opentelemetry.ReceivedMessage} headers from the broker's: RabbitMQ
 *       {@code String.valueOf} of each AMQP header value (they arrive as {@code LongString}), Kafka
 *       {@code new String(header.value(), UTF_8)} of each record header, NATS {@code
 *       headers.getFirst(name)} of each name.
 * </ol>
 *
 * <h2>Span attributes</h2>
 *
 * Both spans carry the messaging semantic conventions' {@code messaging.system} ({@code rabbitmq},
 * {@code kafka}, {@code nats}, or what the caller names), {@code messaging.destination.name} (the
 * row's destination as written, or where the consumer received it), {@code
 * messaging.operation.type} and {@code messaging.operation.name} ({@code send}; {@code process}),
 * and {@code messaging.message.id} (the Relayer message id). A send span of a batch of more than
 * one message carries {@code messaging.batch.message_count}, and {@code relayer.transport}, the
 * transport's name. A failed send ends with status error and {@code error.type} {@code failed},
 * {@code rejected} (for good), {@code no-result}, or the class of the exception the transport
 * threw; a process span whose handler threw, with status error and the exception's class. A process
 * span carries {@code relayer.inbox.consumer} and {@code relayer.inbox.outcome} ({@code first} or
 * {@code duplicate}).
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>Propagation uses {@code W3CTraceContextPropagator} by default, not the application's
 *       configured propagator: stored headers are read by other processes, possibly other versions,
 *       after restarts, so their names must not depend on each process's setup. {@code
 *       propagator(...)} chooses another, for every process alike.
 *   <li>Baggage is off by default: it is application data that the broker's every reader sees.
 *   <li>The send span's parent is the stored context, never the dispatcher thread's current one:
 *       the dispatcher runs on Relayer's own threads, and the send belongs to the writer's trace.
 *   <li>A send span starts for every message, traced or not; a sampler that follows the parent
 *       (OpenTelemetry's default) keeps the writer's sampling decision, so a message written under
 *       an unsampled span is sent under an unsampled one.
 *   <li>A send that the sampler drops under an unsampled stored parent of the same trace state goes
 *       out with its headers as stored: they tell a consumer the same (the trace, unsampled, the
 *       trace state) and name the writer's span as parent instead of the dropped, equally
 *       unrecorded one. That saves building a header map for each message a sampler drops. Any
 *       other decision (sampled, recorded, a new trace state, a dropped new trace) is written.
 *   <li>The span name holds the destination ({@code send orders/created}). Relayer destinations are
 *       addresses an application chooses (exchange and routing key, topic, subject); one that puts
 *       ids in its destinations makes many span names, which tracing backends take, unlike metrics.
 *   <li>Each message of a batch gets its own producer span rather than one span for the batch with
 *       links: every message then has the one parent its consumer needs.
 * </ul>
 */
@NullMarked
package dev.relayer.opentelemetry;

import org.jspecify.annotations.NullMarked;
