package dev.relayer.examples.orders;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import dev.relayer.dispatch.Relayer;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: the order row and its {@code OrderPlaced} message commit together or not at all.
 */
@Service
class Orders {

  static final Table<Record> ORDERS = table(name("orders"));
  static final Field<Long> ID = field(name("id"), Long.class);
  static final Field<String> ITEM = field(name("item"), String.class);
  static final Field<Integer> QUANTITY = field(name("quantity"), Integer.class);

  private final DSLContext dsl;
  private final Relayer relayer;

  Orders(DSLContext dsl, Relayer relayer) {
    this.dsl = dsl;
    this.relayer = relayer;
  }

  /** A placed order. */
  record Placed(long orderId) {}

  /** A stored order. */
  record Order(long id, String item, int quantity) {}

  @Transactional
  public Placed place(String item, int quantity) {
    long orderId =
        dsl.insertInto(ORDERS, ITEM, QUANTITY)
            .values(item, quantity)
            .returning(ID)
            .fetchOne(ID, Long.class);
    // Spring Boot's DSLContext joins this @Transactional transaction; the type, the route (the
    // default exchange, to the queue "orders") and the JSON body come from OrderPlaced.
    relayer.publish(dsl, new OrderPlaced(orderId, item, quantity));
    return new Placed(orderId);
  } // after the commit, the starter hands the message to a dispatcher worker

  @Transactional(readOnly = true)
  public Optional<Order> find(long id) {
    return dsl.select(ID, ITEM, QUANTITY)
        .from(ORDERS)
        .where(ID.eq(id))
        .fetchOptional(r -> new Order(r.value1(), r.value2(), r.value3()));
  }
}
