package io.tidemark.ingest.merge;

import io.tidemark.model.report.IngestCounts;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A batch's planned records and what the version guard will do with them.
 *
 * @param planned one row per key, with {@link MergePlanner#ACTION} (cached or pinned for the run)
 * @param actions how many records each action takes
 */
public record MergePlan(Dataset<Row> planned, Map<Action, Long> actions) {
  public MergePlan {
    Objects.requireNonNull(planned, "planned is null");
    Map<Action, Long> all = new EnumMap<>(Action.class);
    for (Action a : Action.values()) {
      all.put(a, actions.getOrDefault(a, 0L));
    }
    actions = Collections.unmodifiableMap(all);
  }

  /** The records of one action. */
  public long count(Action a) {
    return actions.get(a);
  }

  /** Sets the counts of what the MERGE is handed and what its version guard does. */
  public IngestCounts.Builder countInto(IngestCounts.Builder counts) {
    return counts
        .recordsWritten(written())
        .recordsInserted(count(Action.INSERTED))
        .recordsUpdated(count(Action.UPDATED))
        .recordsDeleted(count(Action.DELETED))
        .recordsUnchanged(count(Action.UNCHANGED))
        .deletesOfUnknownKeys(count(Action.DELETE_OF_UNKNOWN_KEY));
  }

  /** The deduplicated records handed to the MERGE: every action's. */
  public long written() {
    return actions.values().stream().mapToLong(Long::longValue).sum();
  }
}
