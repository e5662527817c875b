/**
 * The reconciler's kernel: the error and the value types every other package may share (an engine's
 * failure, a place on S3). It depends on no other package of the reconciler, so anything can use it
 * without forming a cycle.
 */
package io.tidemark.reconcile.kernel;
