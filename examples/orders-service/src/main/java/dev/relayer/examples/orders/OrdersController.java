package dev.relayer.examples.orders;

import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} with {@code {"item":"book","quantity":2}} places an order (201, with the
 * order id); {@code GET /orders/{id}} reads it back.
 */
@RestController
class OrdersController {

  private final Orders orders;

  OrdersController(Orders orders) {
    this.orders = orders;
  }

  /** The request body of {@code POST /orders}. */
  record PlaceOrder(String item, int quantity) {}

  @PostMapping("/orders")
  ResponseEntity<?> place(@RequestBody PlaceOrder request) {
    if (request.item() == null || request.item().isBlank() || request.quantity() < 1) {
      return ResponseEntity.badRequest().body("item must not be blank and quantity must be >= 1");
    }
    Orders.Placed placed = orders.place(request.item(), request.quantity());
    return ResponseEntity.created(URI.create("/orders/" + placed.orderId())).body(placed);
  }

  @GetMapping("/orders/{id}")
  ResponseEntity<Orders.Order> find(@PathVariable("id") long id) {
    return ResponseEntity.of(orders.find(id));
  }
}
