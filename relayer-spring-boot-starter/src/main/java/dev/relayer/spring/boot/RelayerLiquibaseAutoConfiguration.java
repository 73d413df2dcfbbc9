package dev.relayer.spring.boot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * Logs one warning at start when the application has Liquibase 5 or newer on its class path:
 * Relayer's changelog is tested with Liquibase 4.28 to 4.33, and Liquibase 5 is not open source
 * (FSL). Spring Boot 4's dependency management brings Liquibase 5.0 unless the build sets {@code
 * <liquibase.version>4.33.0</liquibase.version>}. Nothing is logged for older versions or without
 * Liquibase.
 */
@AutoConfiguration
@ConditionalOnClass(name = "liquibase.Liquibase")
public class RelayerLiquibaseAutoConfiguration {

  private static final Logger log =
      LoggerFactory.getLogger(RelayerLiquibaseAutoConfiguration.class);

  /** Created by Spring. */
  public RelayerLiquibaseAutoConfiguration() {}

  /**
   * Checks the Liquibase version once, when the context creates its beans.
   *
   * @param resources the context, whose class loader finds Liquibase
   * @return the check, which holds nothing
   */
  @Bean
  static InitializingBean relayerLiquibaseVersionCheck(ResourceLoader resources) {
    return () -> {
      ClassLoader loader = resources.getClassLoader();
      if (loader != null) {
        LiquibaseVersionCheck.warning(LiquibaseVersionCheck.version(loader)).ifPresent(log::warn);
      }
    };
  }
}
