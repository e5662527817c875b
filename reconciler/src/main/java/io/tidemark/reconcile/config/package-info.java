/**
 * The service's configuration: the typed {@code tidemark.*} mapping and its validated form, checked
 * at start-up. It reads the engine SPI's names and storage's paths, and builds the Athena engine's
 * settings record, but no engine calls back into it.
 */
package io.tidemark.reconcile.config;
