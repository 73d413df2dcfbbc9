package dev.relayer.spring.modulith;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code relayer.modulith.*} properties.
 *
 * @param enabled whether {@code @Externalized} events become Relayer messages; default true
 * @param transport the transport every externalized event goes through; default the name of the
 *     application's only {@code Transport} bean (required when there is none or several)
 */
@ConfigurationProperties("relayer.modulith")
public record RelayerModulithProperties(
    @DefaultValue("true") boolean enabled, @Nullable String transport) {}
