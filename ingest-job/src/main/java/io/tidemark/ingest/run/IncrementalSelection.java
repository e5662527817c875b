package io.tidemark.ingest.run;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import io.tidemark.ingest.checkpoint.TableState;
import io.tidemark.ingest.discovery.Discovery;
import io.tidemark.ingest.discovery.DiscoveryResult;
import io.tidemark.ingest.kernel.Cols;
import io.tidemark.ingest.kernel.RawFile;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.report.DiscoveryMode;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Column;

/**
 * {@code --mode incremental}, the default: only what changed since the checkpoint. With files
 * discovery, the new files of the partitions from the checkpoint's minus the lookback; with
 * watermark discovery (sources that rewrite files), every file of those partitions again, and of
 * their records the ones after the watermark minus the lookback.
 */
final class IncrementalSelection extends FileSelection {
  private final boolean byWatermark;

  IncrementalSelection(RunContext run) {
    super(run);
    this.byWatermark = settings.discovery() == DiscoveryMode.WATERMARK;
  }

  @Override
  List<RawFile> toRead(DiscoveryResult found, Discovery discovery) {
    return byWatermark ? discovery.fingerprinted(found.discovered()) : found.newFiles();
  }

  /**
   * By watermark, the candidates are the records after the watermark minus the lookback, and every
   * invalid record of a new file (a processed file's were quarantined when it was read).
   */
  @Override
  Column candidate(TableState state) {
    String wm = state.watermark();
    if (!byWatermark || wm == null) {
      return lit(true);
    }
    Object low =
        spec.changeMarker().type() == ChangeMarkerType.TIMESTAMP
            ? Timestamp.from(Instant.parse(wm).minus(settings.lookback()))
            : Long.parseLong(wm);
    Column invalid = col(Cols.REASON).isNotNull();
    return invalid.and(col(Cols.NEW_FILE)).or(not(invalid).and(col(Cols.MARKER).gt(lit(low))));
  }
}
