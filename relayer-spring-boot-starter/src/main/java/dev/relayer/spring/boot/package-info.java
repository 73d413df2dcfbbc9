/**
 * Spring Boot auto-configuration for Relayer.
 *
 * <p>Placeholder; completed below.
 */
package dev.relayer.spring.boot;
