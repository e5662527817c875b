package io.tidemark.reconcile.report;

import io.tidemark.model.contract.StateLayout;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.reconcile.kernel.S3Location;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Reports as JSON objects on S3: {@code <prefix>/_reconciliation/dt=YYYY-MM-DD/<id>.json}, dated by
 * the run's start (UTC), the layout of {@link LocalReportStore}. The history is read back at
 * construction; an index in memory answers queries.
 *
 * <p>Writes are conditional, so two replicas never overwrite each other's report: a report's first
 * write is a create ({@code If-None-Match: *}); its later rewrites by this process (RUNNING to
 * PASSED or FAILED, ABANDONED at start-up) replace only the copy this process last wrote or read
 * ({@code If-Match: <ETag>}). Either failing ends in a {@link ReportConflictException}.
 */
public final class S3ReportStore extends IndexedReportStore {

  private final S3Client s3;
  private final S3Location root;
  private final Map<String, String> etagByKey = new ConcurrentHashMap<>();
  private final Map<String, Object> locks = new ConcurrentHashMap<>();

  /**
   * @param s3 the client; the caller owns (and closes) it
   * @param bucket the bucket of the state root
   * @param prefix the state root's key prefix; empty for the bucket's root
   */
  public S3ReportStore(S3Client s3, String bucket, String prefix) {
    this.s3 = Objects.requireNonNull(s3, "s3 is null");
    this.root = new S3Location(bucket, Objects.requireNonNull(prefix, "prefix is null"));
    load();
  }

  /** The key of a report. */
  public String key(ReconciliationReport report) {
    LocalDate dt = LocalDate.ofInstant(report.startedAt(), ZoneOffset.UTC);
    return root.prefix()
        + StateLayout.reportPath(StateLayout.RECONCILIATION_FOLDER, dt, report.id());
  }

  private void load() {
    String folder = root.prefix() + StateLayout.RECONCILIATION_FOLDER + "/";
    List<S3Object> objects;
    try {
      objects =
          s3.listObjectsV2Paginator(r -> r.bucket(root.bucket()).prefix(folder)).contents().stream()
              .toList();
    } catch (SdkException e) {
      throw new ReportStoreException(
          "Cannot list reports under " + root.uri(folder) + ": " + e.getMessage(), e);
    }
    for (S3Object object : objects) {
      String[] parts = object.key().substring(folder.length()).split("/", -1);
      if (parts.length != 2
          || StateLayout.parseDayFolder(parts[0]) == null
          || parts[1].startsWith(".")
          || !parts[1].endsWith(StateLayout.REPORT_SUFFIX)) {
        continue;
      }
      try {
        ResponseBytes<GetObjectResponse> bytes =
            s3.getObjectAsBytes(r -> r.bucket(root.bucket()).key(object.key()));
        ReconciliationReport r =
            Json.read(bytes.asString(StandardCharsets.UTF_8), ReconciliationReport.class);
        byId.put(r.id(), r);
        etagByKey.put(object.key(), bytes.response().eTag());
      } catch (RuntimeException e) {
        // One unreadable report must not hide the others; it stays in the bucket for a person.
        unreadable(root.uri(object.key()), e);
      }
    }
  }

  /**
   * Creates a report, or replaces the copy this process last wrote or read.
   *
   * @throws ReportConflictException when another writer created or changed the report
   */
  @Override
  public void save(ReconciliationReport report) {
    String key = key(report);
    synchronized (locks.computeIfAbsent(key, k -> new Object())) {
      String etag = etagByKey.get(key);
      PutObjectRequest.Builder request =
          PutObjectRequest.builder().bucket(root.bucket()).key(key).contentType("application/json");
      if (etag == null) {
        request.ifNoneMatch("*");
      } else {
        request.ifMatch(etag);
      }
      PutObjectResponse response;
      try {
        response =
            s3.putObject(
                request.build(),
                RequestBody.fromString(Json.write(report), StandardCharsets.UTF_8));
      } catch (S3Exception e) {
        // 412: the condition failed. 409: S3 saw a concurrent conditional write of the same key.
        if (e.statusCode() == 412 || e.statusCode() == 409) {
          throw new ReportConflictException(
              report.id(),
              "Cannot save reconciliation report "
                  + report.id()
                  + ": "
                  + root.uri(key)
                  + (etag == null
                      ? " already exists (another replica created it); not overwritten"
                      : " was changed by another writer since this process wrote ETag "
                          + etag
                          + "; not overwritten"),
              e);
        }
        throw saveFailed(report, key, e);
      } catch (SdkException e) {
        throw saveFailed(report, key, e);
      }
      etagByKey.put(key, response.eTag());
      byId.put(report.id(), report);
    }
  }

  private ReportStoreException saveFailed(ReconciliationReport report, String key, SdkException e) {
    return new ReportStoreException(
        "Cannot save reconciliation report "
            + report.id()
            + " to "
            + root.uri(key)
            + ": "
            + e.getMessage(),
        e);
  }

  /** S3 could not be reached or refused a call for another reason than a conflict. */
  public static class ReportStoreException extends RuntimeException {
    public ReportStoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
