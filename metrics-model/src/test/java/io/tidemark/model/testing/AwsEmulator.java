package io.tidemark.model.testing;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.regions.Region;

/**
 * A running AWS emulator that the tests talk to through the real AWS SDKs: one endpoint for every
 * service it serves, one region, throw-away credentials. Two backends implement it: {@link
 * MotoServer} (the {@code moto_server} process) and {@link LocalStackEmulator} (LocalStack in a
 * container through Testcontainers, where a Docker engine exists). {@link AwsBackend} picks them
 * and {@link AwsSuite} runs a suite on each.
 */
public interface AwsEmulator extends AutoCloseable {
  AwsBackend backend();

  /** The one endpoint of every service, e.g. {@code http://127.0.0.1:5000}. */
  URI endpoint();

  String region();

  String accessKey();

  String secretKey();

  /** Points an AWS SDK client builder at the emulator: its endpoint, region and credentials. */
  default <B extends AwsClientBuilder<B, ?>> B configure(B builder) {
    return builder
        .endpointOverride(endpoint())
        .region(Region.of(region()))
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey(), secretKey())));
  }

  /** Forgets every resource the emulator holds, so that each test starts from nothing. */
  void reset();

  @Override
  void close();
}
