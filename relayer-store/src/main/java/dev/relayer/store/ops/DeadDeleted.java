package dev.relayer.store.ops;

import java.util.OptionalLong;

/**
 * What one page of a purge ({@link DeadRun#purge}) deleted.
 *
 * @param deleted how many rows; fewer than the page held when another transaction held some of them
 *     (a concurrent replay or purge) or had already removed them
 * @param next where the next page starts ({@link DeadPage#after}); empty when this page was the
 *     last
 */
public record DeadDeleted(int deleted, OptionalLong next) {}
