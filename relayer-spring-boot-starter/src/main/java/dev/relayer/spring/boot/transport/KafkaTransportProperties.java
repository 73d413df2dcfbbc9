package dev.relayer.spring.boot.transport;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.kafka.*} properties: a {@code KafkaTransport} bean when {@code
 * relayer.kafka.enabled=true} and {@code relayer-transport-kafka} is on the class path. Options
 * left unset take the transport builder's defaults.
 *
 * @param enabled whether to create the transport; default false
 * @param name the transport's name, which messages name in {@code transport}; default {@code kafka}
 * @param bootstrapServers the cluster, {@code host:port[,host:port...]}. When set, the producer is
 *     configured from {@code relayer.kafka.*} alone; when unset, as Spring Boot configures its own
 *     producer ({@code spring.kafka.*}, {@code spring.kafka.producer.*}, {@code
 *     spring.kafka.security.protocol}, {@code spring.kafka.ssl.bundle}) but without its
 *     serializers, and start-up fails when the application has neither
 * @param ssl the producer's TLS
 * @param properties further producer configuration ({@code relayer.kafka.properties.linger.ms=5}),
 *     applied last; {@code acks}, {@code enable.idempotence} and the serializers are the
 *     transport's
 * @param maxBatchSize most messages per batch; 1–10,000, default 500
 * @param orderedBatches send a batch one record at a time, so several messages of one ordering key
 *     may share a batch; default false
 * @param closeTimeout how long closing waits for the producer to flush; default 30 s
 */
@ConfigurationProperties("relayer.kafka")
public record KafkaTransportProperties(
    @DefaultValue("false") boolean enabled,
    String name,
    String bootstrapServers,
    Ssl ssl,
    @DefaultValue Map<String, String> properties,
    Integer maxBatchSize,
    Boolean orderedBatches,
    Duration closeTimeout) {

  /**
   * The {@code relayer.kafka.ssl.*} properties.
   *
   * @param bundle the SSL bundle ({@code spring.ssl.bundle.jks.<name>} or {@code
   *     spring.ssl.bundle.pem.<name>}) the producer's TLS connections use, which also sets {@code
   *     security.protocol=SSL} unless a protocol is set ({@code spring.kafka.security.protocol} or
   *     {@code relayer.kafka.properties.security.protocol}, for example {@code SASL_SSL}); replaces
   *     {@code spring.kafka.ssl.bundle}. Unset: {@code spring.kafka.ssl.bundle} without {@code
   *     relayer.kafka.bootstrap-servers}, else none
   */
  public record Ssl(String bundle) {}
}
