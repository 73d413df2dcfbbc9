package dev.relayer.spring.boot.transport;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.nats.*} properties: a {@code NatsTransport} bean when {@code
 * relayer.nats.enabled=true} and {@code relayer-transport-nats} is on the class path (Spring Boot
 * has no NATS settings to reuse). Options left unset take the transport builder's defaults.
 *
 * @param enabled whether to create the transport; default false
 * @param name the transport's name, which messages name in {@code transport}; default {@code nats}
 * @param url the server, {@code nats://host:port}, or several separated by commas; required
 * @param maxBatchSize most messages per batch; 1–10,000, default 500
 * @param connectTimeout bound on connecting and on the flush when closing; default 5 s
 * @param reconnectWait wait between reconnection attempts; default 1 s
 * @param orderedBatches publish a batch one message at a time, so several messages of one ordering
 *     key may share a batch; default false
 */
@ConfigurationProperties("relayer.nats")
public record NatsTransportProperties(
    @DefaultValue("false") boolean enabled,
    String name,
    String url,
    Integer maxBatchSize,
    Duration connectTimeout,
    Duration reconnectWait,
    Boolean orderedBatches) {}
