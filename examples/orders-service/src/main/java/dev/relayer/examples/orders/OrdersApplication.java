package dev.relayer.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An orders service: {@code POST /orders} writes an order and its {@code OrderPlaced} message in
 * one transaction; Relayer sends the message to the RabbitMQ queue {@code orders}; {@link Shipping}
 * consumes it, recording each message id in the inbox so that a redelivery is dropped.
 */
@SpringBootApplication
public class OrdersApplication {

  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }
}
