-- Claim-then-fenced-delete in batches of up to 100 rows, as two transactions (auto-commit):
-- 1. claim: lock up to 100 eligible unordered rows in id order after this client's cursor,
--    skipping rows locked by other clients, set a fresh claim token and expiry, count the
--    attempt, and return the rows (ids, message ids, routes, headers and bodies travel to the
--    client);
-- 2. fenced delete of the claimed ids that still carry this claim's token.
-- The token is a random UUID built from two random 64-bit numbers. The cursor (pgbench keeps a
-- client's variables from one transaction to the next; it starts at 0 through -D cursor=0) is the
-- highest id the client claimed, so a claim does not walk again over the index entries of rows
-- already deleted; a claim that finds nothing after the cursor starts the next one from 0.
\set hi random(1, 9223372036854775807)
\set lo random(1, 9223372036854775807)
WITH claimable AS (
  SELECT id FROM relayer_outbox
  WHERE status = 'pending' AND lane IS NULL AND id > :cursor
    AND (deliver_at IS NULL OR deliver_at <= now())
    AND (claim_expires_at IS NULL OR claim_expires_at <= now())
  ORDER BY lane, id
  LIMIT 100
  FOR UPDATE SKIP LOCKED),
claimed AS (
  UPDATE relayer_outbox o
  SET claim_token = (lpad(to_hex(:hi::bigint), 16, '0') || lpad(to_hex(:lo::bigint), 16, '0'))::uuid,
      claim_expires_at = now() + interval '30 seconds',
      attempts = o.attempts + 1
  FROM claimable c
  WHERE o.id = c.id
  RETURNING o.id, o.message_id, o.transport, o.destination, o.message_type, o.headers, o.body,
            o.ordering_key, o.tenant_id, o.attempts)
SELECT coalesce(array_agg(id), '{}') AS claimed_ids,
       array_agg(message_id) AS claimed_message_ids,
       array_agg(transport || ' ' || destination || ' ' || message_type) AS claimed_routes,
       array_agg(headers) AS claimed_headers,
       array_agg(body) AS claimed_bodies,
       coalesce(max(id), 0) AS cursor
FROM claimed
\gset
DELETE FROM relayer_outbox
WHERE id = ANY (:claimed_ids::bigint[])
  AND claim_token = (lpad(to_hex(:hi::bigint), 16, '0') || lpad(to_hex(:lo::bigint), 16, '0'))::uuid;
