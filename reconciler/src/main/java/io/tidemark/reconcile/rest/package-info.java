/**
 * The HTTP API: thin resources and filters over the service, mapping its exceptions to statuses.
 * Nothing depends on it.
 */
package io.tidemark.reconcile.rest;
