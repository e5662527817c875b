package io.tidemark.model.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * LocalStack in a container, started through Testcontainers: the second backend of {@link
 * AwsEmulator}. Only started where {@link AwsBackend#LOCALSTACK} found a Docker engine.
 *
 * <p>The image is {@value #DEFAULT_IMAGE} unless {@code -Dtidemark.localstack.image} names another;
 * {@code LOCALSTACK_AUTH_TOKEN}, when set, is handed to the container (LocalStack's editions that
 * serve Glue and Athena need it).
 */
public final class LocalStackEmulator implements AwsEmulator {
  /** The last LocalStack image that runs without an account; pinned so runs are repeatable. */
  public static final String DEFAULT_IMAGE = "localstack/localstack:4.4";

  private final LocalStackContainer container;

  private LocalStackEmulator(LocalStackContainer container) {
    this.container = container;
  }

  public static LocalStackEmulator start() {
    String image = System.getProperty("tidemark.localstack.image", DEFAULT_IMAGE);
    @SuppressWarnings("resource") // closed by close()
    LocalStackContainer container =
        new LocalStackContainer(
            DockerImageName.parse(image).asCompatibleSubstituteFor("localstack/localstack"));
    String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
    if (token != null && !token.isBlank()) {
      container.withEnv("LOCALSTACK_AUTH_TOKEN", token);
    }
    try {
      container.start();
    } catch (RuntimeException e) {
      container.close();
      throw new IllegalStateException(
          "Cannot start LocalStack (" + image + ") through Testcontainers: " + e.getMessage(), e);
    }
    return new LocalStackEmulator(container);
  }

  @Override
  public AwsBackend backend() {
    return AwsBackend.LOCALSTACK;
  }

  @Override
  public URI endpoint() {
    return container.getEndpoint();
  }

  @Override
  public String region() {
    return container.getRegion();
  }

  @Override
  public String accessKey() {
    return container.getAccessKey();
  }

  @Override
  public String secretKey() {
    return container.getSecretKey();
  }

  /** LocalStack's own state reset: every service forgets its resources, as moto's reset does. */
  @Override
  public void reset() {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(endpoint().resolve("/_localstack/state/reset"))
                      .timeout(Duration.ofSeconds(60))
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "LocalStack refused its state reset: " + response.statusCode() + " " + response.body());
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot reset LocalStack: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    container.close();
  }

  @Override
  public String toString() {
    return "LocalStack " + container.getDockerImageName() + " on " + endpoint();
  }
}
