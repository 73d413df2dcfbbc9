-- One message per transaction: a single-row INSERT in auto-commit, parameters bound per
-- execution (-M prepared), the same row shape Relayer writes.
INSERT INTO relayer_outbox (message_id, transport, destination, message_type, headers, body)
VALUES (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body);
