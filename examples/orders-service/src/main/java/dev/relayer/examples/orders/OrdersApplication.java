package dev.relayer.examples.orders;

import dev.relayer.spring.boot.RelayerBuilderCustomizer;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An orders service: {@code POST /orders} writes an order and its {@code OrderPlaced} message in
 * one transaction ({@link Orders}); Relayer sends the message to the RabbitMQ queue {@code orders}
 * after the commit; {@link Shipping} consumes it, recording each message id in Relayer's inbox so
 * that a redelivery is dropped.
 */
@SpringBootApplication
public class OrdersApplication {

  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }

  /** The durable queue the orders go to, declared by Spring AMQP when it first connects. */
  @Bean
  Queue ordersQueue(@Value("${orders.queue}") String queue) {
    return new Queue(queue);
  }

  /** Relayer reports each message's send to {@link DeliveryLog}. */
  @Bean
  RelayerBuilderCustomizer deliveryLogListens(DeliveryLog deliveryLog) {
    return relayer -> relayer.eventListener(deliveryLog);
  }
}
