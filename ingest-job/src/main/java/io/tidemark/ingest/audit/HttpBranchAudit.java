package io.tidemark.ingest.audit;

import io.tidemark.model.audit.AuditRequest;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.ReconciliationReport;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Audits through the reconciler service: {@code POST <url>/api/datasets/<dataset>/audits} with the
 * service's API key in {@code X-API-Key}, waiting up to the timeout for the verdict. The key is
 * never logged or put in a message.
 */
public final class HttpBranchAudit implements BranchAudit {
  /** The header the reconciler reads its API key from. */
  public static final String API_KEY_HEADER = "X-API-Key";

  /** The environment variable the CLI reads the API key from. */
  public static final String API_KEY_ENV = "TIDEMARK_RECONCILER_API_KEY";

  /** How long an audit may take by default: a FULL comparison of a large table. */
  public static final Duration TIMEOUT_DEFAULT = Duration.ofMinutes(30);

  private final URI base;
  private final String apiKey;
  private final Duration timeout;
  private final HttpClient client;

  /**
   * @param base the reconciler's URL, e.g. {@code https://reconciler.example.com}
   * @param apiKey the service's API key
   * @param timeout how long to wait for the verdict
   */
  public HttpBranchAudit(URI base, String apiKey, Duration timeout) {
    this.base = Objects.requireNonNull(base, "base is null");
    this.apiKey = Objects.requireNonNull(apiKey, "apiKey is null");
    this.timeout = Objects.requireNonNull(timeout, "timeout is null");
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
  }

  /** The endpoint of a dataset's audits. */
  public URI endpoint(String dataset) {
    String root = base.toString().replaceAll("/+$", "");
    return URI.create(
        root + "/api/datasets/" + URLEncoder.encode(dataset, StandardCharsets.UTF_8) + "/audits");
  }

  @Override
  public ReconciliationReport audit(String dataset, AuditRequest request) {
    URI uri = endpoint(dataset);
    HttpRequest http;
    try {
      http =
          HttpRequest.newBuilder(uri)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json")
              .header(API_KEY_HEADER, apiKey)
              .POST(HttpRequest.BodyPublishers.ofString(Json.write(request)))
              .build();
    } catch (IllegalArgumentException e) {
      // The JDK's message quotes the header's value: the key. Neither it nor the cause goes on.
      throw new IllegalStateException(
          "Cannot send the API key to "
              + uri
              + ": it holds a character an HTTP header cannot carry (visible ASCII only)");
    }
    HttpResponse<String> response;
    try {
      response = client.send(http, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("Cannot reach the reconciler at " + uri + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the audit at " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "The reconciler at "
              + uri
              + " answered HTTP "
              + response.statusCode()
              + ": "
              + abbreviate(response.body()));
    }
    return Json.read(response.body(), ReconciliationReport.class);
  }

  private static String abbreviate(String body) {
    String s = body == null ? "" : body.strip();
    return s.length() > 500 ? s.substring(0, 500) + "…" : s;
  }
}
