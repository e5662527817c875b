package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.reconcile.kernel.S3Location;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reads run reports from {@code s3://bucket/<prefix>/_runs/dt=YYYY-MM-DD/<run-id>.json}, as {@link
 * LocalRunReports} does from a folder: a report's {@code dt} is its start date, so the day before
 * the window start is read too, and only the day folders that can hold the window are listed. An
 * object's version is its ETag: an object is fetched again only when it changed.
 */
public final class S3RunReports extends IndexedRunReports {
  private final S3Client s3;
  private final S3Location root;
  private final String folder;

  /**
   * @param s3 the client; the caller owns (and closes) it
   * @param bucket the bucket of the state root
   * @param prefix the state root's key prefix; empty for the bucket's root
   */
  public S3RunReports(S3Client s3, String bucket, String prefix) {
    this.s3 = Objects.requireNonNull(s3, "s3 is null");
    this.root = new S3Location(bucket, Objects.requireNonNull(prefix, "prefix is null"));
    this.folder = root.prefix() + StateLayout.RUNS_FOLDER + "/";
  }

  @Override
  protected List<LocalDate> listDays() {
    List<LocalDate> days = new ArrayList<>();
    listLevel(
        folder,
        object -> {},
        dayPrefix -> {
          LocalDate dt =
              StateLayout.parseDayFolder(
                  dayPrefix.substring(folder.length(), dayPrefix.length() - 1));
          if (dt != null) {
            days.add(dt);
          }
        });
    return days;
  }

  @Override
  protected List<StoredFile> listFiles(LocalDate day) {
    String prefix = folder + StateLayout.dayFolder(day) + "/";
    List<StoredFile> out = new ArrayList<>();
    listLevel(
        prefix,
        object -> {
          String name = object.key().substring(prefix.length());
          if (!name.startsWith(".") && name.endsWith(StateLayout.REPORT_SUFFIX)) {
            out.add(new StoredFile(root.uri(object.key()), object.eTag() + "@" + object.size()));
          }
        },
        subfolder -> {});
    return out;
  }

  @Override
  protected String text(StoredFile file) {
    String key = file.location().substring(root.uri("").length());
    try {
      return s3.getObjectAsBytes(r -> r.bucket(root.bucket()).key(key))
          .asString(StandardCharsets.UTF_8);
    } catch (SdkException e) {
      throw new RunReportException(
          "Cannot read run report " + file.location() + ": " + e.getMessage(), e);
    }
  }

  private void listLevel(String prefix, Consumer<S3Object> objects, Consumer<String> folders) {
    try {
      root.listLevel(s3, prefix, objects, folders);
    } catch (SdkException e) {
      throw new RunReportException(
          "Cannot list run reports under " + root.uri(prefix) + ": " + e.getMessage(), e);
    }
  }
}
