package dev.relayer.store;

/**
 * Code the store calls on every write: a {@link HeaderContributor}, an {@link EnqueueCheck}, an
 * {@link EnqueueListener} or a {@link StoreEventListener}. Attach one with {@link
 * RelayerStore#attach}; an object that is several kinds of hook is attached as each of them.
 */
public sealed interface StoreHook
    permits HeaderContributor, EnqueueCheck, EnqueueListener, StoreEventListener {}
