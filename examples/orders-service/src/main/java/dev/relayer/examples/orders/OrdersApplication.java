package dev.relayer.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

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
}
