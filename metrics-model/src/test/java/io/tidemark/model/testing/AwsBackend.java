package io.tidemark.model.testing;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The AWS emulators a suite can run on, and which of them a run uses.
 *
 * <p>By default every suite runs on moto (never skipped: a missing moto_server fails the run) and
 * on LocalStack where Testcontainers finds a Docker engine; without one, the LocalStack runs are
 * skipped and the skip says so. {@code -Dtidemark.aws.backends=moto,localstack} (or {@code
 * TIDEMARK_AWS_BACKENDS}) selects backends explicitly: a listed backend is required, so LocalStack
 * listed on a machine without Docker fails instead of skipping, and an unlisted one is skipped as
 * not selected. A suite that needs a service a backend does not serve is skipped on it with that
 * reason, whatever is selected.
 */
public enum AwsBackend {
  MOTO("moto") {
    @Override
    public Optional<String> lacks(AwsService service) {
      return Optional.empty();
    }

    @Override
    public AwsEmulator start() {
      return MotoServer.start();
    }

    @Override
    Optional<String> unavailable() {
      return Optional.empty();
    }
  },
  LOCALSTACK("LocalStack") {
    @Override
    public Optional<String> lacks(AwsService service) {
      switch (service) {
        case S3:
        case CLOUDWATCH:
        case CLOUDFORMATION:
        case EVENTBRIDGE:
          return Optional.empty();
        case GLUE:
        case ATHENA:
          if (hasAuthToken()) {
            return Optional.empty();
          }
          return Optional.of(
              service.description()
                  + ", which LocalStack's free edition does not serve"
                  + " (set LOCALSTACK_AUTH_TOKEN to run it on an edition that does)");
        case MOTO_API:
        default:
          return Optional.of(service.description() + ", which only moto has");
      }
    }

    @Override
    public AwsEmulator start() {
      Optional<String> problem = Docker.problem();
      if (problem.isPresent()) {
        throw new IllegalStateException(
            "LocalStack backend was selected by -D"
                + PROPERTY
                + " but cannot run: "
                + problem.get());
      }
      return LocalStackEmulator.start();
    }

    @Override
    Optional<String> unavailable() {
      return Docker.problem();
    }
  };

  /** The system property (or, upper-cased with underscores, environment variable) selecting. */
  public static final String PROPERTY = "tidemark.aws.backends";

  private final String label;

  AwsBackend(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Empty when this backend serves {@code service}, else what it lacks, for a skip reason. */
  public abstract Optional<String> lacks(AwsService service);

  /** Starts this backend's emulator. */
  public abstract AwsEmulator start();

  /** Why this backend cannot run on this machine, if it cannot. */
  abstract Optional<String> unavailable();

  /**
   * Why a suite needing {@code services} does not run on this backend in this run, or empty when it
   * does. The reason is what the skipped test reports.
   */
  public Optional<String> skipReason(Collection<AwsService> services) {
    String prefix = label + " backend skipped: ";
    Optional<Set<AwsBackend>> selected = selected();
    if (selected.isPresent() && !selected.get().contains(this)) {
      return Optional.of(
          prefix + "not selected by -D" + PROPERTY + "=" + selectionText(selected.get()));
    }
    String lacking =
        services.stream()
            .sorted()
            .map(this::lacks)
            .flatMap(Optional::stream)
            .collect(Collectors.joining("; and "));
    if (!lacking.isEmpty()) {
      return Optional.of(prefix + "this suite needs " + lacking);
    }
    if (selected.isPresent()) {
      return Optional.empty(); // required: a backend that cannot run fails when started
    }
    return unavailable().map(why -> prefix + why);
  }

  /** The backends named by {@link #PROPERTY}, or empty when it is not set. */
  public static Optional<Set<AwsBackend>> selected() {
    String value = System.getProperty(PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv(PROPERTY.toUpperCase(Locale.ROOT).replace('.', '_'));
    }
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    Set<AwsBackend> backends = EnumSet.noneOf(AwsBackend.class);
    for (String name : value.split(",")) {
      String n = name.trim();
      if (n.isEmpty()) {
        continue;
      }
      backends.add(
          Arrays.stream(values())
              .filter(b -> b.name().equalsIgnoreCase(n))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "-D"
                              + PROPERTY
                              + " names '"
                              + n
                              + "'; the AWS backends are "
                              + selectionText(EnumSet.allOf(AwsBackend.class)))));
    }
    return Optional.of(backends);
  }

  private static String selectionText(Set<AwsBackend> backends) {
    return backends.stream()
        .map(b -> b.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(","));
  }

  private static boolean hasAuthToken() {
    String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
    return token != null && !token.isBlank();
  }

  /**
   * Whether Testcontainers finds a Docker engine, asked once per JVM. Without one, Testcontainers
   * only looks for local sockets and settings and pulls nothing; the answer is bounded in time all
   * the same, so that a wedged engine cannot hang the build.
   */
  static final class Docker {
    private static final long TIMEOUT_SECONDS = 30;
    private static volatile Optional<String> problem;

    private Docker() {}

    static boolean available() {
      return problem().isEmpty();
    }

    /** Empty when a Docker engine answers, else why LocalStack cannot run. */
    static Optional<String> problem() {
      Optional<String> p = problem;
      if (p == null) {
        synchronized (Docker.class) {
          p = problem;
          if (p == null) {
            p = ask();
            problem = p;
          }
        }
      }
      return p;
    }

    private static Optional<String> ask() {
      CompletableFuture<Boolean> answer = new CompletableFuture<>();
      Thread asker =
          new Thread(
              () -> {
                try {
                  answer.complete(
                      org.testcontainers.DockerClientFactory.instance().isDockerAvailable());
                } catch (Throwable t) {
                  answer.complete(false);
                }
              },
              "docker-check");
      asker.setDaemon(true);
      asker.start();
      Optional<String> none = Optional.of("no Docker engine (Testcontainers found none)");
      try {
        return answer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS) ? Optional.empty() : none;
      } catch (TimeoutException e) {
        return Optional.of(
            "no Docker engine answered Testcontainers within " + TIMEOUT_SECONDS + " s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return none;
      } catch (java.util.concurrent.ExecutionException e) {
        return none;
      }
    }
  }
}
