-- One message per transaction, the transaction explicit as an application's is: BEGIN, the
-- single-row INSERT of enqueue-1.sql, COMMIT: three statements, each its own round trip.
BEGIN;
INSERT INTO relayer_outbox (message_id, transport, destination, message_type, headers, body)
VALUES (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body);
END;
