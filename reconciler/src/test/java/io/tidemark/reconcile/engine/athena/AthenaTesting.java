package io.tidemark.reconcile.engine.athena;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.athena.AthenaClient;

/** Settings and clients for the Athena tests: an emulator's endpoint, fast polling. */
final class AthenaTesting {
  static final AwsCredentialsProvider CREDENTIALS =
      StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing"));

  private AthenaTesting() {}

  static AthenaSettings settings(URI endpoint) {
    return new AthenaSettings(
        "us-east-1",
        Optional.of(endpoint),
        "primary",
        "s3://tidemark-athena-results/queries/",
        "AwsDataCatalog",
        "tidemark",
        Duration.ofSeconds(30),
        Duration.ofMillis(5),
        Duration.ofMillis(40),
        4,
        3);
  }

  /** A client of the test's own, to look at what the runner left on the emulator. */
  static AthenaClient client(URI endpoint) {
    return AthenaQueryRunner.newClient(settings(endpoint), CREDENTIALS);
  }
}
