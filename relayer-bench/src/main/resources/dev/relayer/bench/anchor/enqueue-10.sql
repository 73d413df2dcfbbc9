-- Ten messages per transaction: one multi-row INSERT in auto-commit.
INSERT INTO relayer_outbox (message_id, transport, destination, message_type, headers, body)
VALUES (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body),
       (gen_random_uuid(), 'memory', 'orders', 'OrderPlaced', :headers, :body);
