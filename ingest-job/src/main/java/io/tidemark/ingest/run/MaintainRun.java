package io.tidemark.ingest.run;

import io.tidemark.ingest.config.OperatorOptions;
import io.tidemark.ingest.lease.Lease;
import io.tidemark.ingest.maintain.RememberedDeletes;
import io.tidemark.ingest.maintain.TableMaintainer;
import io.tidemark.ingest.tables.OutputTables;
import io.tidemark.model.report.TableMaintenance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;

/**
 * {@code --mode maintain}: the curated, quarantine and tombstone tables each compacted, their old
 * snapshots expired and their orphan files removed ({@link TableMaintainer}), the tombstone table
 * first folded to one remembered delete per key still deleted ({@link RememberedDeletes}), under
 * the run's lease so that no batch commits meanwhile. No curated or quarantine row changes, and the
 * checkpoint stays where it was: its snapshot is tagged, and expiry keeps tags.
 */
final class MaintainRun {
  private final RunContext run;
  private final Lease lease;

  /**
   * @param lease confirmed just before the remembered deletes are overwritten
   */
  MaintainRun(RunContext run, Lease lease) {
    this.run = run;
    this.lease = lease;
  }

  Ending maintain() {
    OperatorOptions o = run.settings().operator();
    Instant now = run.settings().clock().instant();
    TableMaintainer maintainer = new TableMaintainer(run.spark(), run.start().runId());
    OutputTables tables = run.tables();
    Table curated = tables.loadCurated();
    long before = OutputTables.snapshotId(curated);
    List<TableMaintenance> done = new ArrayList<>();
    for (String name :
        List.of(
            run.settings().curatedSparkName(),
            run.settings().quarantineSparkName(),
            run.settings().tombstoneSparkName())) {
      Table t = tables.load(name);
      if (t == null) {
        continue;
      }
      long folded = 0;
      if (name.equals(run.settings().tombstoneSparkName())) {
        folded =
            RememberedDeletes.fold(
                run.spark(),
                name,
                t,
                run.settings().curatedSparkName(),
                run.settings().dataset().keyColumns(),
                run.settings().dataset().changeMarker().column(),
                run.start().runId(),
                lease::confirm);
        t = tables.load(name);
      }
      done.add(maintainer.maintain(name, t, now, o.snapshotRetention(), o.orphanFileAge(), folded));
    }
    run.trail().maintained(done);
    if (done.stream().noneMatch(TableMaintenance::changedSomething)) {
      return Ending.nothingToDo(
          List.of(
              done.isEmpty()
                  ? "Nothing to maintain: " + run.settings().curatedSparkName() + " does not exist"
                  : "Nothing to maintain: no file to compact, snapshot to expire, orphan or"
                      + " remembered delete no longer needed to remove"));
    }
    long after = OutputTables.snapshotId(tables.loadCurated());
    return Ending.succeeded(after != before ? after : null);
  }
}
