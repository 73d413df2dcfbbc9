package dev.relayer.spring.modulith;

import dev.relayer.api.InvalidInputException;
import dev.relayer.api.spi.Transport;
import dev.relayer.dispatch.Relayer;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import java.util.List;
import org.jooq.DSLContext;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.config.EventExternalizationAutoConfiguration;

/**
 * Makes Relayer the externalization backend of Spring Modulith: a {@link RelayerEventExternalizer}
 * over Modulith's {@link EventExternalizationConfiguration} (by default, the {@code @Externalized}
 * events of the application's packages), the starter's {@link Relayer} and the application's {@link
 * DSLContext}. {@code relayer.modulith.enabled=false} turns it off; {@code
 * spring.modulith.events.externalization.enabled=false} too, since it removes Modulith's
 * configuration.
 */
@AutoConfiguration(
    after = {RelayerAutoConfiguration.class, EventExternalizationAutoConfiguration.class})
@ConditionalOnClass(EventExternalizationConfiguration.class)
@ConditionalOnBooleanProperty(name = "relayer.modulith.enabled", matchIfMissing = true)
@ConditionalOnBean({Relayer.class, DSLContext.class, EventExternalizationConfiguration.class})
@EnableConfigurationProperties(RelayerModulithProperties.class)
public class RelayerModulithAutoConfiguration {

  /** Created by Spring. */
  public RelayerModulithAutoConfiguration() {}

  /**
   * The externalizer.
   *
   * @param relayer the Relayer
   * @param dsl the application's jOOQ context, which joins Spring's transactions
   * @param configuration Modulith's externalization configuration
   * @param properties the {@code relayer.modulith.*} properties
   * @param transports the application's transports, to default the transport name
   * @param beans resolves {@code @bean} references in SpEL targets and keys
   * @return the externalizer, an application listener
   * @throws InvalidInputException when {@code relayer.modulith.transport} is not set and there is
   *     not exactly one {@code Transport} bean to take it from
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerEventExternalizer relayerEventExternalizer(
      Relayer relayer,
      DSLContext dsl,
      EventExternalizationConfiguration configuration,
      RelayerModulithProperties properties,
      ObjectProvider<Transport> transports,
      BeanFactory beans) {
    String transport = properties.transport();
    if (transport == null || transport.isBlank()) {
      List<String> names = transports.orderedStream().map(Transport::name).toList();
      if (names.size() != 1) {
        throw new InvalidInputException(
            "relayer.modulith.transport must be set: it names the transport of every"
                + " @Externalized event, and there is "
                + (names.isEmpty() ? "no Transport bean" : "more than one Transport bean " + names)
                + " to take it from");
      }
      transport = names.get(0);
    }
    StandardEvaluationContext context = new StandardEvaluationContext();
    context.setBeanResolver(new BeanFactoryResolver(beans));
    return new RelayerEventExternalizer(relayer, dsl, configuration, transport, context);
  }
}
