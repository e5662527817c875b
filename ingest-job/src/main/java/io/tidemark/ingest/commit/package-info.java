/**
 * The commit stage: writes a planned batch (quarantine rows, remembered deletes, then data and
 * checkpoint through the run's own branch, published to main only if main did not move) and says
 * what it came to ({@link io.tidemark.ingest.commit.CommitOutcome}); also the run branches, the
 * statements that write the tables, and the replay's marks. It confirms the run's lease just before
 * it writes to the branch and before it publishes. Everything the job writes to a table goes
 * through here.
 */
package io.tidemark.ingest.commit;
