/**
 * Verified publish: the run asks the reconciler to audit its branch before it publishes it to
 * {@code main}, over HTTP to the reconciler service ({@link
 * io.tidemark.ingest.audit.HttpBranchAudit}) or through any {@link
 * io.tidemark.ingest.audit.BranchAudit}. It knows the shared contract's audit request and report,
 * nothing of the job's stages.
 */
package io.tidemark.ingest.audit;
