package io.tidemark.model.contract;

import java.time.LocalDate;
import java.util.Objects;

/**
 * Where reports live under a state root: {@code <root>/_runs/dt=YYYY-MM-DD/<run-id>.json} for
 * ingest runs and {@code <root>/_reconciliation/dt=YYYY-MM-DD/<id>.json} for reconciliations, one
 * folder per UTC day so Athena can prune them.
 */
public final class StateLayout {
  /** The folder of ingest run reports. */
  public static final String RUNS_FOLDER = "_runs";

  /** The folder of reconciliation reports. */
  public static final String RECONCILIATION_FOLDER = "_reconciliation";

  /** The day folders' prefix. */
  public static final String DAY_PREFIX = "dt=";

  /** A report's file suffix. */
  public static final String REPORT_SUFFIX = ".json";

  private StateLayout() {}

  /** {@code dt=YYYY-MM-DD}. */
  public static String dayFolder(LocalDate day) {
    Objects.requireNonNull(day, "day is null");
    return DAY_PREFIX + day;
  }

  /** The day of a {@code dt=YYYY-MM-DD} folder name, or null when the name is not one. */
  public static LocalDate parseDayFolder(String name) {
    if (name == null || !name.startsWith(DAY_PREFIX)) {
      return null;
    }
    return RawLayout.parseDate(name.substring(DAY_PREFIX.length()));
  }

  /** A report's path relative to the state root, with {@code /} separators. */
  public static String reportPath(String folder, LocalDate day, String id) {
    Objects.requireNonNull(folder, "folder is null");
    Objects.requireNonNull(id, "id is null");
    return folder + "/" + dayFolder(day) + "/" + id + REPORT_SUFFIX;
  }
}
