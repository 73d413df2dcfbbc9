package dev.relayer.examples.orders;

import java.time.Duration;
import java.time.Instant;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Once the service is ready, places {@code orders.demo.count} orders (3; 0 places none), waits a
 * little for them to be shipped, then prints how to place more. A demo's start: a real service
 * removes this class.
 */
@Component
class DemoOrders {

  private static final Logger log = LoggerFactory.getLogger(DemoOrders.class);
  private static final String[] ITEMS = {"book", "mug", "lamp", "pen", "plant"};

  private final Orders orders;
  private final DSLContext dsl;
  private final int count;

  DemoOrders(Orders orders, DSLContext dsl, @Value("${orders.demo.count:3}") int count) {
    this.orders = orders;
    this.dsl = dsl;
    this.count = count;
  }

  @EventListener
  void placeAFew(ApplicationReadyEvent ready) throws InterruptedException {
    String port = ready.getApplicationContext().getEnvironment().getProperty("local.server.port");
    if (count > 0) {
      log.info("Placing {} orders (orders.demo.count={})", count, count);
      int shipped = dsl.fetchCount(Shipping.SHIPMENTS);
      for (int i = 0; i < count; i++) {
        orders.place(ITEMS[i % ITEMS.length], i + 1);
      }
      Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
      while (dsl.fetchCount(Shipping.SHIPMENTS) < shipped + count
          && Instant.now().isBefore(deadline)) {
        Thread.sleep(100);
      }
    }
    log.info(
        """
        Running. Place an order:
          curl -X POST localhost:{}/orders -H 'Content-Type: application/json' -d '{"item":"book","quantity":2}'
        Relayer's health and meters:
          curl localhost:{}/actuator/health/relayer
          curl localhost:{}/actuator/metrics/relayer.outbox.sent
        Stop with Ctrl+C.\
        """,
        port,
        port,
        port);
  }
}
