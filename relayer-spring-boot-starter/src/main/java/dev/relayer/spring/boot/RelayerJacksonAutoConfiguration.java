package dev.relayer.spring.boot;

import dev.relayer.api.spi.MessageSerializer;
import dev.relayer.jackson.JacksonMessageSerializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON {@link MessageSerializer} of typed enqueue ({@code relayer.publish(dsl, event)}) when
 * the application has {@code relayer-jackson}: over Spring Boot's {@link JsonMapper} bean when
 * there is exactly one (so {@code spring.jackson.*} applies), else over a default mapper. It backs
 * off when the application defines its own {@code MessageSerializer}.
 *
 * <p>Jackson 3 ({@code tools.jackson}), the one Spring Boot 4 auto-configures by default; an
 * application that stays on Jackson 2 defines a {@code MessageSerializer} bean of its own.
 */
@AutoConfiguration(
    before = RelayerAutoConfiguration.class,
    afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({JacksonMessageSerializer.class, JsonMapper.class})
public class RelayerJacksonAutoConfiguration {

  /** Created by Spring. */
  public RelayerJacksonAutoConfiguration() {}

  /**
   * The serializer that the {@code Relayer} bean is given.
   *
   * @param mappers Boot's {@code JsonMapper}, used when unique
   * @return a {@link JacksonMessageSerializer}
   */
  @Bean
  @ConditionalOnMissingBean(MessageSerializer.class)
  public MessageSerializer relayerMessageSerializer(ObjectProvider<JsonMapper> mappers) {
    JsonMapper mapper = mappers.getIfUnique();
    return mapper != null ? JacksonMessageSerializer.of(mapper) : JacksonMessageSerializer.create();
  }
}
