/**
 * The build's jOOQ code generator, run by {@code relayer-jooq-generated} at {@code
 * generate-sources}. It lives in a module of its own so that the test kit users put on their test
 * class path carries no build tooling.
 */
package dev.relayer.codegen;
