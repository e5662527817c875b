package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.ReconciliationReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.stream.Stream;

/**
 * Reports as JSON files: {@code <state-root>/_reconciliation/dt=YYYY-MM-DD/<id>.json}, dated by the
 * run's start (UTC), each written atomically. The history is read back at construction, so it
 * survives restarts; an index in memory answers queries.
 */
public final class LocalReportStore extends IndexedReportStore {
  public static final String FOLDER = StateLayout.RECONCILIATION_FOLDER;

  private final Path root;

  public LocalReportStore(Path stateRoot) {
    this.root = stateRoot.resolve(FOLDER);
    load();
  }

  /** The file of a report. */
  public Path file(ReconciliationReport report) {
    LocalDate dt = LocalDate.ofInstant(report.startedAt(), ZoneOffset.UTC);
    return root.resolve(StateLayout.dayFolder(dt)).resolve(report.id() + ".json");
  }

  private void load() {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root, 2)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        if (f.getFileName().toString().startsWith(".")) {
          continue;
        }
        try {
          ReconciliationReport r = Json.read(f, ReconciliationReport.class);
          byId.put(r.id(), r);
        } catch (RuntimeException e) {
          // One unreadable report must not hide the others; it stays on disk for a person.
          unreadable(f.toString(), e);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list reports under " + root + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void save(ReconciliationReport report) {
    Json.writeAtomically(file(report), report);
    byId.put(report.id(), report);
  }
}
