package dev.relayer.spring.boot.inbox;

import dev.relayer.dispatch.Relayer;
import dev.relayer.inbox.InboxGuard;
import dev.relayer.spring.boot.RelayerAutoConfiguration;
import org.jooq.DSLContext;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Inbox-guarded listeners, when the application has {@code relayer-inbox}: a {@link RelayerInbox}
 * over the application's {@code DSLContext}, and the advisor that runs every {@link InboxGuarded}
 * method inside its guard (an infrastructure advisor, applied by the same auto-proxying as
 * {@code @Transactional}).
 */
@AutoConfiguration(after = {RelayerAutoConfiguration.class, JooqAutoConfiguration.class})
@ConditionalOnClass(InboxGuard.class)
@ConditionalOnBean({Relayer.class, DSLContext.class})
public class RelayerInboxAutoConfiguration {

  /** Created by Spring. */
  public RelayerInboxAutoConfiguration() {}

  /**
   * The application's inbox guards, on its {@code DSLContext}.
   *
   * @param relayer the Relayer whose tables hold the inbox
   * @param dsl the application's {@code DSLContext}
   * @return the guards
   */
  @Bean
  @ConditionalOnMissingBean
  public RelayerInbox relayerInbox(Relayer relayer, DSLContext dsl) {
    return new RelayerInbox(relayer.store(), dsl);
  }

  /**
   * Runs each {@link InboxGuarded} method inside its consumer's guard.
   *
   * @param inbox the guards
   * @return the advisor
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static Advisor relayerInboxGuardedAdvisor(ObjectProvider<RelayerInbox> inbox) {
    return new DefaultPointcutAdvisor(
        new AnnotationMatchingPointcut(null, InboxGuarded.class, true),
        new InboxGuardedInterceptor(inbox, RelayerInboxAutoConfiguration.class.getClassLoader()));
  }
}
