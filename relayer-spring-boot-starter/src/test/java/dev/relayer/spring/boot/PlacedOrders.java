package dev.relayer.spring.boot;

import dev.relayer.dispatch.Relayer;
import dev.relayer.store.NewMessage;
import java.nio.charset.StandardCharsets;
import org.jooq.DSLContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/** Application code that enqueues in a {@code @Transactional} method on the injected context. */
public class PlacedOrders {

  private final DSLContext dsl;
  private final Relayer relayer;

  public PlacedOrders(DSLContext dsl, Relayer relayer) {
    this.dsl = dsl;
    this.relayer = relayer;
  }

  /** Enqueues {@code OrderPlaced} with {@code body} to {@code transport}/{@code destination}. */
  @Transactional
  public void place(String transport, String destination, String body) {
    relayer
        .store()
        .enqueue(
            dsl,
            NewMessage.builder()
                .transport(transport)
                .destination(destination)
                .messageType("OrderPlaced")
                .body(body.getBytes(StandardCharsets.UTF_8))
                .build());
  }

  /** The bean. */
  @Configuration(proxyBeanMethods = false)
  static class Config {
    @Bean
    PlacedOrders placedOrders(DSLContext dsl, Relayer relayer) {
      return new PlacedOrders(dsl, relayer);
    }
  }
}
