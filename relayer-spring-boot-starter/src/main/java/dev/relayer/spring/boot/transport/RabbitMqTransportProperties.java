package dev.relayer.spring.boot.transport;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.rabbitmq.*} properties: a {@code RabbitMqTransport} bean when {@code
 * relayer.rabbitmq.enabled=true} and {@code relayer-transport-rabbitmq} is on the class path.
 * Options left unset take the transport builder's defaults.
 *
 * @param enabled whether to create the transport; default false
 * @param name the transport's name, which messages name in {@code transport}; default {@code
 *     rabbitmq}
 * @param uri the broker as an AMQP URI ({@code amqp://user:password@host:port/vhost}). When set,
 *     the transport connects there and ignores {@code spring.rabbitmq.*}; when unset, it copies the
 *     client factory of the application's Spring AMQP connection factory (credentials, virtual
 *     host, TLS from {@code spring.rabbitmq.*}) and connects to every address of Spring Boot's
 *     connection details ({@code spring.rabbitmq.addresses}, or host and port), and start-up fails
 *     without either
 * @param addresses several brokers, {@code host[:port]} each ({@code [host]:port} for IPv6; without
 *     a port, 5672, or 5671 with TLS), tried in this order until one answers, instead of the host
 *     of {@code uri} or of {@code spring.rabbitmq.*}, which still give the credentials, virtual
 *     host and TLS; unset: the host of {@code uri}, else Spring Boot's addresses
 * @param maxBatchSize most messages per batch; 1–10,000, default 500
 * @param connectTimeout bound on connecting and on each channel RPC; default 5 s
 * @param recoveryInterval wait between reconnection attempts; default 2 s
 * @param orderedBatches publish a batch one message at a time, so several messages of one ordering
 *     key may share a batch; default false
 */
@ConfigurationProperties("relayer.rabbitmq")
public record RabbitMqTransportProperties(
    @DefaultValue("false") boolean enabled,
    String name,
    String uri,
    List<String> addresses,
    Integer maxBatchSize,
    Duration connectTimeout,
    Duration recoveryInterval,
    Boolean orderedBatches) {}
