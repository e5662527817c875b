package io.tidemark.reconcile.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.reconcile.fixtures.MotoProcess;
import io.tidemark.reconcile.fixtures.S3Clients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The reconciler as its container image runs it: the packaged {@code target/quarkus-app} started
 * with the Dockerfile's ENTRYPOINT ({@code java -jar quarkus-app/quarkus-run.jar}) from the folder
 * holding {@code quarkus-app/}, in an environment holding only the Dockerfile's {@code ENV} values
 * and the ECS task definition's variables (plus {@code PATH}, {@code JAVA_HOME}), against a
 * moto_server for everything AWS.
 *
 * <p>Runs after {@code package} (the surefire execution {@code image-it} in the {@code
 * integration-test} phase, so {@code mvn verify} and {@code bin/test} run it): {@code quarkus-app}
 * only exists once {@code quarkus:build} has run.
 *
 * <p>Test-only variables, which the task definition does not set: {@code QUARKUS_HTTP_PORT} (a free
 * port), {@code TIDEMARK_ATHENA_ENDPOINT} (moto; the S3 state root follows it), the Glue and S3
 * endpoints of the dataset's Iceberg catalog (moto), static {@code AWS_ACCESS_KEY_ID}/{@code
 * AWS_SECRET_ACCESS_KEY} (ECS gives the task role's credentials through {@code
 * AWS_CONTAINER_CREDENTIALS_RELATIVE_URI}), and {@code AWS_EC2_METADATA_DISABLED=true} so no SDK
 * probes the instance metadata address. CloudWatch stays off: the task definition does not set
 * {@code TIDEMARK_CLOUDWATCH_ENABLED}, and the test checks the registry did not start.
 */
@Tags({@Tag("aws"), @Tag("packaged")})
class ImageRunIT {
  private static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final Path DOCKERFILE = Path.of("src/main/docker/Dockerfile.jvm");
  private static final String BUCKET = "tidemark-lake";
  private static final String REGION = "us-east-1";
  private static final String API_KEY = "image-test-key-0123";
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);
  private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w.$/<>]+\\(");

  private static final String CONTRACT_KEY = "tidemark/tidemark.yaml";

  /** The customers dataset over the lake's raw folder, as a deployment's contract declares it. */
  private static final String CONTRACT =
      "version: 1\n"
          + "datasets:\n"
          + "  customers:\n"
          + "    raw: {location: 's3://"
          + BUCKET
          + "/raw/customers', layout: {kind: hive, column: ingest_date, date-format:"
          + " yyyy-MM-dd}}\n"
          + "    columns: {customer_id: string, customer_name: string, email: string,"
          + " updated_at: timestamp, op: string}\n"
          + "    key-columns: [customer_id]\n"
          + "    compared-columns: [customer_name, email]\n"
          + "    change-marker: {column: updated_at, type: timestamp}\n"
          + "    operation: {column: op, upsert: [U], delete: [D]}\n"
          + "    curated: {table: curated.customers}\n";

  private static MotoProcess moto;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeAll
  static void startMoto() {
    Path jar = TARGET.resolve("quarkus-app/quarkus-run.jar");
    if (!Files.isRegularFile(jar)) {
      fail(
          jar
              + " is missing: this test runs the packaged service; run it with `mvn verify`"
              + " (it runs after quarkus:build, in the integration-test phase)");
    }
    moto = MotoProcess.start();
    try (S3Client s3 = S3Clients.on(moto.endpoint())) {
      s3.createBucket(b -> b.bucket(BUCKET));
      // The contract, where the stack's ContractKey puts it: the service reads it from S3.
      s3.putObject(
          b -> b.bucket(BUCKET).key(CONTRACT_KEY),
          software.amazon.awssdk.core.sync.RequestBody.fromString(CONTRACT));
    }
  }

  @AfterAll
  static void stopMoto() {
    if (moto != null) {
      moto.close();
    }
  }

  /**
   * The variables of the ECS task definition, exactly as the CloudFormation template names them.
   */
  private static Map<String, String> taskDefinition(int port) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TIDEMARK_STATE_ROOT", "s3://" + BUCKET + "/state");
    env.put("TIDEMARK_ENGINE", "athena");
    env.put("TIDEMARK_ATHENA_REGION", REGION);
    env.put("TIDEMARK_ATHENA_WORKGROUP", "primary");
    env.put("TIDEMARK_ATHENA_OUTPUT_LOCATION", "s3://" + BUCKET + "/athena-results/");
    env.put("TIDEMARK_ATHENA_DATABASE", "curated");
    // 0.0.0.0 in the template; loopback here, on a free port.
    env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
    env.put("TIDEMARK_API_KEYS", API_KEY);
    env.put("TIDEMARK_CONTRACT", "s3://" + BUCKET + "/" + CONTRACT_KEY);
    env.put("TIDEMARK_CATALOG_WAREHOUSE", "s3://" + BUCKET + "/warehouse");
    // Test-only: a free port and every AWS endpoint on moto.
    env.put("QUARKUS_HTTP_PORT", String.valueOf(port));
    String endpoint = moto.endpoint().toString();
    env.put("TIDEMARK_ATHENA_ENDPOINT", endpoint);
    env.put("TIDEMARK_CATALOG_PROPERTIES_GLUE_ENDPOINT", endpoint);
    env.put("TIDEMARK_CATALOG_PROPERTIES_S3_ENDPOINT", endpoint);
    env.put("TIDEMARK_CATALOG_PROPERTIES_CLIENT_REGION", REGION);
    env.put("AWS_ACCESS_KEY_ID", "testing");
    env.put("AWS_SECRET_ACCESS_KEY", "testing");
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    return env;
  }

  @Test
  void theImagesEntrypointServesTheTaskDefinitionsConfiguration() throws Exception {
    Image image = Image.read(DOCKERFILE);
    int port = freePort();
    Path log = TARGET.resolve("image-run-" + port + ".log");
    long started = System.nanoTime();
    Process p = start(image, taskDefinition(port), log);
    try {
      URI base = URI.create("http://127.0.0.1:" + port);
      HttpResponse<String> ready = awaitReady(p, base, log);
      long readyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(ready.statusCode()).as("GET /q/health/ready").isEqualTo(200);
      JsonNode health = new ObjectMapper().readTree(ready.body());
      assertThat(health.path("status").asText()).as(ready.body()).isEqualTo("UP");

      HttpResponse<String> datasets =
          HTTP.send(
              HttpRequest.newBuilder(base.resolve("/api/datasets"))
                  .header("X-API-Key", API_KEY)
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(datasets.statusCode()).as(datasets.body()).isEqualTo(200);
      JsonNode list = new ObjectMapper().readTree(datasets.body());
      assertThat(list.isArray()).as(datasets.body()).isTrue();
      assertThat(list).hasSize(1);
      JsonNode customers = list.get(0);
      assertThat(customers.path("name").asText()).isEqualTo("customers");
      assertThat(customers.path("engine").asText()).isEqualTo("athena");
      assertThat(customers.path("rawLocation").asText())
          .isEqualTo("s3://" + BUCKET + "/raw/customers");
      assertThat(customers.path("curatedTable").asText()).isEqualTo("curated.customers");

      // The packaged service serves its status page and the page's script.
      for (var expected :
          java.util.Map.of("/", "<title>Tidemark status</title>", "/status.js", "renderOverview")
              .entrySet()) {
        String path = expected.getKey();
        HttpResponse<String> page =
            HTTP.send(
                HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as("GET " + path).isEqualTo(200);
        assertThat(page.body()).as("GET " + path).contains(expected.getValue());
      }

      // A write without the key is refused (the key came from TIDEMARK_API_KEYS).
      HttpResponse<String> anonymous =
          HTTP.send(
              HttpRequest.newBuilder(base.resolve("/api/reconciliations"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"dataset\":\"customers\"}"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);

      // ECS stops a task with SIGTERM: the service stops cleanly.
      p.destroy();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s of SIGTERM").isTrue();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(output)
          .contains("Reports on s3://" + BUCKET + "/state")
          .contains("Reconciler ready")
          .contains("datasets=[customers]")
          .contains("tidemark-reconciler stopped in")
          .doesNotContain("CloudWatch")
          .doesNotContain("Exception");
      assertThat(STACK_FRAME.matcher(output).find()).as("a stack trace in\n" + output).isFalse();
      System.out.printf("ImageRunIT: ready in %d ms%n", readyMs);
    } finally {
      stop(p);
    }
  }

  @Test
  void aMissingRequiredVariableStopsTheStartNamingItsKey() throws Exception {
    Image image = Image.read(DOCKERFILE);
    int port = freePort();
    Map<String, String> env = taskDefinition(port);
    env.remove("TIDEMARK_ATHENA_OUTPUT_LOCATION");
    Path log = TARGET.resolve("image-run-" + port + "-missing.log");
    Process p = start(image, env, log);
    try {
      assertThat(p.waitFor(READY_WITHIN.toSeconds(), TimeUnit.SECONDS))
          .as("the process exits by itself")
          .isTrue();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(output).isNotZero();
      assertThat(output)
          .contains(
              "Cannot start the reconciler: config key 'tidemark.athena.output-location':"
                  + " is required for the athena engine")
          .doesNotContain("Reconciler ready")
          .doesNotContain("Listening on");
    } finally {
      stop(p);
    }
  }

  private static Process start(Image image, Map<String, String> taskEnv, Path log)
      throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(image.entrypoint())
            .directory(TARGET.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.clear();
    // The JVM of this test stands for the image's: its java first on the PATH.
    String javaHome = System.getProperty("java.home");
    env.put("JAVA_HOME", javaHome);
    env.put("PATH", javaHome + "/bin:/usr/bin:/bin");
    env.putAll(image.env());
    env.putAll(taskEnv);
    List<String> command = new ArrayList<>(image.entrypoint());
    command.set(0, javaHome + "/bin/" + command.get(0));
    pb.command(command);
    return pb.start();
  }

  private static HttpResponse<String> awaitReady(Process p, URI base, Path log)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    HttpResponse<String> last = null;
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        fail(
            "The service exited with "
                + p.exitValue()
                + " before it was ready:\n"
                + Files.readString(log, StandardCharsets.UTF_8));
      }
      try {
        last =
            HTTP.send(
                HttpRequest.newBuilder(base.resolve("/q/health/ready"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (last.statusCode() == 200) {
          return last;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(250);
    }
    fail(
        "/q/health/ready did not answer 200 within "
            + READY_WITHIN
            + " (last: "
            + (last == null ? "no answer" : last.statusCode() + " " + last.body())
            + "):\n"
            + Files.readString(log, StandardCharsets.UTF_8));
    return last;
  }

  private static void stop(Process p) throws InterruptedException {
    if (p.isAlive()) {
      p.destroy();
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** What the test takes from the Dockerfile: its ENTRYPOINT and its ENV values. */
  record Image(List<String> entrypoint, Map<String, String> env) {
    private static final Pattern ENV_PAIR = Pattern.compile("(\\w+)=(\"([^\"]*)\"|(\\S+))");
    private static final Pattern JSON_STRING = Pattern.compile("\"([^\"]*)\"");

    static Image read(Path dockerfile) {
      String text;
      try {
        text = Files.readString(dockerfile, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      List<String> entrypoint = null;
      Map<String, String> env = new LinkedHashMap<>();
      // Instructions, continuation lines joined; comments dropped.
      StringBuilder instruction = new StringBuilder();
      List<String> instructions = new ArrayList<>();
      for (String line : text.split("\n")) {
        if (line.strip().startsWith("#")) {
          continue;
        }
        if (line.endsWith("\\")) {
          instruction.append(line, 0, line.length() - 1).append(' ');
          continue;
        }
        instruction.append(line);
        instructions.add(instruction.toString().strip());
        instruction.setLength(0);
      }
      for (String i : instructions) {
        if (i.startsWith("ENV ")) {
          Matcher m = ENV_PAIR.matcher(i.substring(4));
          while (m.find()) {
            env.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
          }
        } else if (i.startsWith("ENTRYPOINT ")) {
          List<String> args = new ArrayList<>();
          Matcher m = JSON_STRING.matcher(i.substring("ENTRYPOINT ".length()));
          while (m.find()) {
            args.add(m.group(1));
          }
          entrypoint = List.copyOf(args);
        }
      }
      assertThat(entrypoint)
          .as("the Dockerfile's exec-form ENTRYPOINT")
          .containsExactly("java", "-jar", "quarkus-app/quarkus-run.jar");
      assertThat(env).as("the Dockerfile's ENV").containsKey("JAVA_TOOL_OPTIONS");
      return new Image(entrypoint, env);
    }
  }
}
