/**
 * Storage access shared by the engines and the service: the raw layer's files listed under the
 * contract (locally and on S3), the raw files' key types from their footers, and the curated and
 * quarantine tables read through the Iceberg Java API. It depends on the kernel and the shared
 * contract only, never on an engine.
 */
package io.tidemark.reconcile.storage;
