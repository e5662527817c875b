/**
 * Where run and reconciliation reports are read and written: a local folder or S3, with an index
 * for listing. It depends on the kernel (S3 locations) and the shared contract only.
 */
package io.tidemark.reconcile.report;
