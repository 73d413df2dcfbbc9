--liquibase formatted sql

--changeset orders-service:1
CREATE TABLE orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  placed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE shipments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  message_id uuid NOT NULL,
  shipped_at timestamptz NOT NULL DEFAULT now()
);
