package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads run reports from {@code <state-root>/_runs/dt=YYYY-MM-DD/<run-id>.json}. A report's {@code
 * dt} is its start date, so partitions from the day before the window start are read too. A file's
 * version is its size and modification time.
 */
public final class LocalRunReports extends IndexedRunReports {
  public static final String FOLDER = StateLayout.RUNS_FOLDER;
  private final Path root;

  public LocalRunReports(Path stateRoot) {
    this.root = stateRoot.resolve(FOLDER);
  }

  @Override
  protected List<LocalDate> listDays() {
    List<LocalDate> out = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return out;
    }
    try (DirectoryStream<Path> days =
        Files.newDirectoryStream(root, StateLayout.DAY_PREFIX + "*")) {
      for (Path day : days) {
        LocalDate dt = StateLayout.parseDayFolder(day.getFileName().toString());
        if (dt != null && Files.isDirectory(day)) {
          out.add(dt);
        }
      }
    } catch (IOException e) {
      throw new RunReportException(
          "Cannot list run reports under " + root + ": " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  protected List<StoredFile> listFiles(LocalDate day) {
    Path folder = root.resolve(StateLayout.dayFolder(day));
    List<StoredFile> out = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*.json")) {
      for (Path f : files) {
        if (f.getFileName().toString().startsWith(".")) {
          continue;
        }
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(f, BasicFileAttributes.class);
        } catch (NoSuchFileException gone) {
          continue;
        }
        if (a.isRegularFile()) {
          out.add(new StoredFile(f.toString(), a.size() + "@" + a.lastModifiedTime()));
        }
      }
    } catch (NoSuchFileException gone) {
      return out;
    } catch (IOException e) {
      throw new RunReportException(
          "Cannot list run reports under " + folder + ": " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  protected String text(StoredFile file) {
    try {
      return Files.readString(Path.of(file.location()), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read run report " + file.location() + ": " + e.getMessage(), e);
    }
  }
}
