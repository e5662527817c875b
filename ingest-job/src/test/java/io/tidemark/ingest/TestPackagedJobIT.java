package io.tidemark.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.ingest.config.IngestSpark;
import io.tidemark.ingest.run.IngestJob;
import io.tidemark.ingest.run.IngestOutcome;
import io.tidemark.model.config.CatalogSpec;
import io.tidemark.model.contract.DatasetContract;
import io.tidemark.model.events.IngestRunFinished;
import io.tidemark.model.json.Json;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.IngestStatus;
import io.tidemark.model.testing.MotoServer;
import io.tidemark.stack.StackTemplate;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The packaged job jar (classifier {@code glue}) as Glue and EMR run it: a child JVM whose class
 * path holds only what those platforms provide (Spark, Scala, Hadoop, Iceberg with iceberg-aws, the
 * AWS SDK, and their own dependencies, taken from this module's test class path), started through
 * {@code org.apache.spark.deploy.SparkSubmit} in local[2] — which is what {@code spark-submit} runs
 * — with the jar as its application jar. Day one runs as Glue runs the stack's job: the job's
 * script (deploy/glue/ingest.scala) compiled against the jar, its object as the main class, the jar
 * as an extra jar, Glue's arguments around ours, so it goes through {@link
 * io.tidemark.ingest.cli.GlueEntryPoint}; day two runs the command alone as on EMR; raw files in
 * moto's S3, tables in moto's Glue catalog with S3FileIO, run reports on S3. The curated rows,
 * counts and watermark must equal the same two days run in this JVM on local folders.
 *
 * <p>Runs in the integration-test phase, after {@code package}, which hands over the jar's path.
 */
@Tags({@Tag("aws"), @Tag("packaged"), @Tag("spark")})
class TestPackagedJobIT extends SparkTestSupport {
  /** Set by the integration-test execution in pom.xml. */
  static final String JAR_PROPERTY = "tidemark.glue.jar";

  private static final String BUCKET = "tidemark-packaged";
  private static final String GLUE_RUN_ID =
      "jr_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
  private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(5);

  /** What a class path mismatch looks like in a JVM's output. */
  private static final Pattern LINKAGE =
      Pattern.compile(
          "NoClassDefFoundError|ClassNotFoundException|LinkageError|NoSuchMethodError"
              + "|NoSuchFieldError|IncompatibleClassChangeError|AbstractMethodError");

  /** Packages the platforms provide: the jar must carry none of them. */
  private static final List<String> PLATFORM_PACKAGES =
      List.of(
          "org/apache/spark/",
          "scala/",
          "org/apache/iceberg/",
          "software/amazon/awssdk/",
          "org/apache/hadoop/");

  private static MotoServer moto;
  private static Path jar;

  @TempDir Path dir;
  private final Set<String> landed = new HashSet<>();

  @BeforeAll
  static void findJarAndStartMoto() {
    String path = System.getProperty(JAR_PROPERTY);
    Assumptions.assumeTrue(
        path != null, "runs in the integration-test phase, after package builds the jar");
    jar = Path.of(path);
    assertThat(jar).as("the packaged job jar; build it with mvn package").isRegularFile();
    moto = MotoServer.start();
    // This JVM reads the Glue catalog to compare; Iceberg's AWS clients take these.
    System.setProperty("aws.accessKeyId", MotoServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", MotoServer.SECRET_KEY);
    System.setProperty("aws.region", MotoServer.REGION);
  }

  @AfterAll
  static void stopMoto() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    System.clearProperty("aws.region");
    if (moto != null) {
      moto.close();
    }
  }

  @Test
  void theJarCarriesNoPlatformClassesAndRelocatesWhatCouldClash() throws IOException {
    List<String> entries = entries(jar);
    for (String pkg : PLATFORM_PACKAGES) {
      assertThat(entries).as("entries under %s", pkg).noneMatch(e -> e.startsWith(pkg));
    }
    assertThat(entries)
        .contains(
            "io/tidemark/ingest/cli/GlueEntryPoint.class",
            "io/tidemark/ingest/cli/IngestCommand.class",
            "io/tidemark/model/report/IngestRunReport.class",
            "io/tidemark/shaded/com/fasterxml/jackson/databind/ObjectMapper.class",
            "io/tidemark/shaded/picocli/CommandLine.class",
            "org/sqlite/JDBC.class")
        .noneMatch(e -> e.startsWith("com/fasterxml/") || e.startsWith("picocli/"))
        .noneMatch(e -> e.startsWith("org/slf4j/") || e.startsWith("io/netty/"))
        // The platform's logging configuration applies.
        .doesNotContain("log4j2.properties");
    try (JarFile j = new JarFile(jar.toFile())) {
      Manifest m = j.getManifest();
      assertThat(m.getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.tidemark.ingest.cli.IngestCommand");
    }
  }

  @Test
  void twoDaysThroughThePackagedJarLeaveWhatTheyLeaveLocally() throws Exception {
    List<String> platform = platformClassPath();
    IngestSettings local = settings(dir.resolve("local"));
    Path raw = Path.of(local.dataset().raw().location());
    try (S3Client s3 = s3()) {
      s3.createBucket(b -> b.bucket(BUCKET));
      s3.putObject(
          b -> b.bucket(BUCKET).key(CONTRACT.substring(("s3://" + BUCKET + "/").length())),
          software.amazon.awssdk.core.sync.RequestBody.fromString(contract()));

      RawFixtures.write(raw, "2024-03-18", "a.parquet", S3Lake.dayOne());
      S3Lake.upload(s3, BUCKET, "raw/customers", raw, landed);
      IngestOutcome localDay1 = new IngestJob(spark, local).run();
      assertThat(localDay1.report().status()).isEqualTo(IngestStatus.SUCCEEDED);

      // Day one as Glue runs it: Glue's own arguments around ours.
      List<String> glueArgs = new ArrayList<>();
      glueArgs.addAll(
          List.of(
              "--JOB_ID",
              "j_0123456789abcdef",
              "--JOB_RUN_ID",
              GLUE_RUN_ID,
              "--JOB_NAME",
              "tidemark-ingest-crm-customers",
              "--job-bookmark-option",
              "job-bookmark-disable",
              "--TempDir",
              "s3://" + BUCKET + "/glue-temp/",
              "--enable-glue-datacatalog",
              "true",
              "--datalake-formats",
              "iceberg",
              "--enable-metrics",
              ""));
      glueArgs.addAll(jobArguments());
      // Glue compiles the job's script against the jar and runs the script's object with the jar
      // among --extra-jars: here its compiled classes are the application, the jar an extra one.
      Path script = compileGlueScript();
      Child glueDay1 =
          submit(
              platform, StackTemplate.GLUE_SCRIPT_OBJECT, script, List.of(jar), glueArgs, "day1");
      assertThat(glueDay1.exitCode()).as(glueDay1.describe()).isZero();
      assertThat(glueDay1.output())
          .contains("ignoring Glue's own arguments: --TempDir, --datalake-formats")
          .contains("SUCCEEDED run " + GLUE_RUN_ID);

      RawFixtures.write(raw, "2024-03-19", "b.parquet", S3Lake.dayTwo());
      S3Lake.upload(s3, BUCKET, "raw/customers", raw, landed);
      IngestOutcome localDay2 = new IngestJob(spark, local).run();
      assertThat(localDay2.report().status()).isEqualTo(IngestStatus.SUCCEEDED);

      // Day two as EMR runs it: spark-submit --class IngestCommand with the options alone, and
      // the run's event put on EventBridge, where a rule sends it to a queue.
      String queue = eventQueue();
      List<String> day2Args = new ArrayList<>(withRunId(jobArguments(), "emr-day2"));
      Path lineage = dir.resolve("lineage.jsonl");
      day2Args.addAll(
          List.of(
              "--events-endpoint",
              moto.endpoint().toString(),
              "--deployment",
              "crm",
              "--openlineage-file",
              lineage.toString()));
      Child emrDay2 =
          submit(
              platform,
              "io.tidemark.ingest.cli.IngestCommand",
              jar,
              List.of(),
              withLogFormatJson(day2Args),
              "day2");
      assertThat(emrDay2.exitCode()).as(emrDay2.describe()).isZero();
      assertJsonLinesNameTheRun(emrDay2, "emr-day2");
      JsonNode event = onlyEvent(queue);
      assertThat(event.path("detail-type").asText()).isEqualTo(IngestRunFinished.DETAIL_TYPE);
      assertThat(event.path("detail").path("runId").asText()).isEqualTo("emr-day2");
      assertThat(event.path("detail").path("status").asText()).isEqualTo("SUCCEEDED");
      assertThat(event.path("detail").path("deployment").asText()).isEqualTo("crm");
      // And its lineage, through the OpenLineage client shaded into the jar.
      JsonNode run = new ObjectMapper().readTree(java.nio.file.Files.readAllLines(lineage).get(0));
      assertThat(run.path("eventType").asText()).isEqualTo("COMPLETE");
      assertThat(run.path("job").path("name").asText()).isEqualTo("ingest.crm.customers");
      assertThat(run.path("outputs").get(0).path("name").asText()).isEqualTo("curated.customers");

      for (Child c : List.of(glueDay1, emrDay2)) {
        assertThat(LINKAGE.matcher(c.output()).find())
            .as("class path errors in the child's output:%n%s", c.describe())
            .isFalse();
      }

      Map<String, IngestRunReport> reports = reports(s3);
      assertThat(reports).containsOnlyKeys(GLUE_RUN_ID, "emr-day2");
      IngestRunReport awsDay1 = reports.get(GLUE_RUN_ID);
      IngestRunReport awsDay2 = reports.get("emr-day2");
      assertThat(awsDay1.status()).isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(awsDay2.status()).isEqualTo(IngestStatus.SUCCEEDED);
      assertThat(awsDay1.counts()).isEqualTo(localDay1.report().counts());
      assertThat(awsDay2.counts()).isEqualTo(localDay2.report().counts());
      assertThat(awsDay1.watermarkAfter()).isEqualTo(localDay1.report().watermarkAfter());
      assertThat(awsDay2.watermarkBefore()).isEqualTo(awsDay1.watermarkAfter());
      assertThat(awsDay2.watermarkAfter()).isEqualTo(localDay2.report().watermarkAfter());

      IngestSettings aws = readBack();
      IngestSpark.register(spark, aws.catalog());
      assertThat(curated(aws))
          .isEqualTo(curated(local))
          .hasSize(20)
          .containsKeys("K01", "K21")
          .doesNotContainKey("K02");
      assertThat(count(aws.curatedSparkName() + "_quarantine"))
          .isEqualTo(1)
          .isEqualTo(count(local.curatedSparkName() + "_quarantine"));
    }
  }

  /** The arguments with JSON log lines asked for. */
  private static List<String> withLogFormatJson(List<String> args) {
    List<String> out = new ArrayList<>(args);
    out.addAll(List.of("--log-format", "json"));
    return out;
  }

  /**
   * Every line the job's own code logged is a JSON object naming the run, the dataset and the mode,
   * and there are such lines: the start, the commit, the end.
   */
  private static void assertJsonLinesNameTheRun(Child c, String runId) throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    List<com.fasterxml.jackson.databind.JsonNode> ours = new ArrayList<>();
    for (String line : c.output().split("\\R")) {
      if (line.contains("\"logger\":\"io.tidemark.")) {
        ours.add(json.readTree(line));
      } else {
        assertThat(line)
            .as("a line of the job's own code that is not JSON%n%s", c.describe())
            .doesNotMatch(".* (INFO|WARN|ERROR) +(IngestJob|RunLease|IngestCommand): .*");
      }
    }
    assertThat(ours).as(c.describe()).hasSizeGreaterThan(2);
    assertThat(ours).extracting(l -> l.path("message").asText()).anyMatch(m -> m.contains(runId));
    // The run's thread, from its first line to its last: every line names it.
    List<com.fasterxml.jackson.databind.JsonNode> main =
        ours.stream().filter(l -> l.path("thread").asText().equals("main")).toList();
    int first = -1;
    int last = -1;
    for (int i = 0; i < main.size(); i++) {
      if (runId.equals(main.get(i).path("mdc").path("runId").asText())) {
        first = first < 0 ? i : first;
        last = i;
      }
    }
    assertThat(last - first).as("lines naming the run%n%s", c.describe()).isGreaterThan(1);
    for (com.fasterxml.jackson.databind.JsonNode l : main.subList(first, last + 1)) {
      assertThat(l.path("mdc").path("runId").asText()).as(l.toString()).isEqualTo(runId);
      assertThat(l.path("mdc").path("dataset").asText()).isEqualTo("customers");
      assertThat(l.path("mdc").path("mode").asText()).isEqualTo("INCREMENTAL");
    }
  }

  // ------------------------------------------------------------------ the child JVM

  record Child(int exitCode, String output, List<String> command, Duration took) {
    String describe() {
      String tail = output.length() > 6000 ? output.substring(output.length() - 6000) : output;
      return "exit " + exitCode + " after " + took.toSeconds() + " s; output tail:\n" + tail;
    }
  }

  /** Where the run's contract lies, as the stack's ContractKey names it in the artifacts. */
  private static final String CONTRACT = "s3://" + BUCKET + "/tidemark/tidemark.yaml";

  /** The demo's customers on the lake bucket, in the Glue catalog (on moto). */
  private static String contract() {
    String endpoint = moto.endpoint().toString();
    return """
        version: 1
        catalog:
          name: glue
          warehouse: s3://%1$s/warehouse
          properties:
            type: glue
            client.region: %2$s
            glue.endpoint: %3$s
            s3.endpoint: %3$s
            s3.path-style-access: "true"
        datasets:
          customers:
            pipeline: crm
            raw:
              location: s3://%1$s/raw/customers
              layout: {kind: hive, column: ingest_date, date-format: yyyy-MM-dd}
            columns:
              customer_id: string
              customer_name: string
              email: string
              updated_at: timestamp
              op: string
            key-columns: [customer_id]
            compared-columns: [customer_name, email]
            change-marker: {column: updated_at, type: timestamp}
            operation: {column: op, upsert: [U], delete: [D]}
            curated: {table: curated.customers}
        """
        .formatted(BUCKET, MotoServer.REGION, endpoint);
  }

  /**
   * The job's options for the S3 and Glue run as the stack passes them (StackTemplate's
   * jobArguments and a trigger's --dataset): the contract on S3 says the rest.
   */
  private static List<String> jobArguments() {
    return List.of(
        "--contract",
        CONTRACT,
        "--dataset",
        "customers",
        "--state-root",
        "s3://" + BUCKET + "/state");
  }

  private static List<String> withRunId(List<String> args, String runId) {
    List<String> out = new ArrayList<>(args);
    out.add("--run-id=" + runId);
    return out;
  }

  /** The settings the child runs used, to read their tables back in this JVM. */
  private static IngestSettings readBack() {
    Map<String, String> p = S3Lake.glueCatalog(moto, "s3://" + BUCKET + "/warehouse");
    DatasetContract spec =
        Contracts.customers("s3://" + BUCKET + "/raw/customers", "curated.customers").toBuilder()
            .pipeline("crm")
            .build();
    return IngestSettings.of(spec, new CatalogSpec("glue", p), "s3://" + BUCKET + "/state");
  }

  /**
   * {@code spark-submit --master local[2] --class main [--jars jars] app args}, as its launcher
   * runs it.
   */
  private Child submit(
      List<String> platform,
      String mainClass,
      Path app,
      List<Path> jars,
      List<String> args,
      String name)
      throws IOException, InterruptedException {
    String endpoint = moto.endpoint().toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The same module opens the build gives Spark's tests (root pom.xml, spark.jvm.opens).
    String opens = System.getProperty("tidemark.spark.opens", "");
    assertThat(opens).as("tidemark.spark.opens (set by pom.xml)").contains("--add-opens");
    cmd.addAll(List.of(opens.trim().split("\\s+")));
    cmd.add("-Xmx1g");
    cmd.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve(name + "-tmp")));
    cmd.add("-Daws.disableEc2Metadata=true");
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, platform));
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.addAll(List.of("--master", "local[2]", "--class", mainClass, "--name", "tidemark-" + name));
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.sql.shuffle.partitions", "4");
    conf.put("spark.local.dir", dir.resolve(name + "-spark").toString());
    // Glue and EMR map s3:// to their S3 file system; S3A here, on moto.
    conf.put("spark.hadoop.fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    conf.put("spark.hadoop.fs.s3a.endpoint", endpoint);
    conf.put("spark.hadoop.fs.s3a.endpoint.region", MotoServer.REGION);
    conf.put("spark.hadoop.fs.s3a.path.style.access", "true");
    conf.put("spark.hadoop.fs.s3a.connection.ssl.enabled", "false");
    conf.put("spark.hadoop.fs.s3a.access.key", MotoServer.ACCESS_KEY);
    conf.put("spark.hadoop.fs.s3a.secret.key", MotoServer.SECRET_KEY);
    conf.forEach(
        (k, v) -> {
          cmd.add("--conf");
          cmd.add(k + "=" + v);
        });
    if (!jars.isEmpty()) {
      cmd.add("--jars");
      cmd.add(String.join(",", jars.stream().map(Path::toString).toList()));
    }
    cmd.add(app.toString());
    cmd.addAll(args);

    Path log = dir.resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.remove("SPARK_HOME");
    env.remove("SPARK_CONF_DIR");
    env.remove("HADOOP_CONF_DIR");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("AWS_ACCESS_KEY_ID", MotoServer.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", MotoServer.SECRET_KEY);
    env.put("AWS_REGION", MotoServer.REGION);
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    long start = System.nanoTime();
    Process p = pb.start();
    try {
      if (!p.waitFor(CHILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new AssertionError(
            "the packaged job did not end within "
                + CHILD_TIMEOUT
                + "; output tail:\n"
                + tail(Files.readString(log, StandardCharsets.UTF_8)));
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    System.out.println(
        "packaged job " + name + " (" + mainClass + ") took " + took.toMillis() + " ms");
    return new Child(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8), cmd, took);
  }

  /**
   * Compiles deploy/glue/ingest.scala with Scala's compiler (copied to target/scalac by pom.xml)
   * against the glue jar alone, as Glue compiles a Scala job's script, and jars the classes.
   */
  private Path compileGlueScript() throws IOException, InterruptedException {
    Path scalac = Path.of(System.getProperty("tidemark.scalac.dir", "target/scalac"));
    assertThat(scalac.resolve("scala-compiler.jar")).as("Scala's compiler, from pom.xml").exists();
    Path source = Path.of("..", "deploy", "glue", "ingest.scala");
    Path classes = Files.createDirectories(dir.resolve("script-classes"));
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            Stream.of("scala-compiler.jar", "scala-reflect.jar", "scala-library.jar")
                .map(f -> scalac.resolve(f).toString())
                .collect(java.util.stream.Collectors.joining(File.pathSeparator)),
            "scala.tools.nsc.Main",
            "-classpath",
            scalac.resolve("scala-library.jar") + File.pathSeparator + jar,
            "-d",
            classes.toString(),
            source.toString());
    Path log = dir.resolve("scalac.log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("scalac ends").isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(p.exitValue()).as("scalac: %s", Files.readString(log)).isZero();
    Path scriptJar = dir.resolve("glue-script.jar");
    try (java.util.jar.JarOutputStream out =
            new java.util.jar.JarOutputStream(Files.newOutputStream(scriptJar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new ZipEntry(classes.relativize(f).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(f));
        out.closeEntry();
      }
    }
    assertThat(entries(scriptJar)).contains(StackTemplate.GLUE_SCRIPT_OBJECT + ".class");
    return scriptJar;
  }

  private static String tail(String s) {
    return s.length() > 6000 ? s.substring(s.length() - 6000) : s;
  }

  /**
   * What Glue and EMR provide, from this JVM's class path: every jar but this project's classes and
   * modules, the test frameworks, and what the job jar brings itself (its classes as they are or
   * relocated). Jackson is the one library both sides have: Spark needs the platform's, the job
   * uses its relocated copy.
   */
  static List<String> platformClassPath() throws IOException {
    Set<String> carried = new HashSet<>();
    for (String e : entries(jar)) {
      if (e.endsWith(".class") && !e.startsWith("META-INF/")) {
        carried.add(e.startsWith("io/tidemark/shaded/") ? e.substring(19) : e);
      }
    }
    List<String> platform = new ArrayList<>();
    List<String> left = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      String unix = entry.replace('\\', '/');
      boolean ours =
          Files.isDirectory(p)
              || unix.contains("/io/tidemark/")
              || p.getFileName().toString().startsWith("tidemark-");
      boolean testing =
          Stream.of(
                  "/org/junit/",
                  "/org/opentest4j/",
                  "/org/apiguardian/",
                  "/org/assertj/",
                  "/net/bytebuddy/",
                  "/org/apache/maven/")
              .anyMatch(unix::contains);
      boolean jackson = unix.contains("/com/fasterxml/jackson/core/");
      if (ours || testing || !Files.isRegularFile(p)) {
        left.add(entry);
      } else if (!jackson && carries(p, carried)) {
        left.add(entry);
      } else {
        platform.add(entry);
      }
    }
    assertThat(platform)
        .as("the platform class path")
        .anyMatch(e -> e.contains("spark-core_"))
        .anyMatch(e -> e.contains("scala-library"))
        .anyMatch(e -> e.contains("iceberg-spark-runtime"))
        .anyMatch(e -> e.contains("iceberg-aws"))
        .anyMatch(e -> e.contains("hadoop-aws"))
        .anyMatch(e -> e.contains("/software/amazon/awssdk/glue/"))
        .noneMatch(e -> e.contains("picocli"))
        .noneMatch(e -> e.contains("sqlite-jdbc"))
        .noneMatch(e -> e.contains("jackson-datatype-jsr310"))
        .noneMatch(e -> e.contains("tidemark"));
    assertThat(left).as("left out").anyMatch(e -> e.contains("picocli"));
    return platform;
  }

  /** Whether the jar at {@code p} has a class the job jar carries. */
  private static boolean carries(Path p, Set<String> carried) throws IOException {
    try (ZipFile z = new ZipFile(p.toFile())) {
      return z.stream()
          .map(ZipEntry::getName)
          .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
          .anyMatch(carried::contains);
    }
  }

  private static List<String> entries(Path jarFile) throws IOException {
    try (ZipFile z = new ZipFile(jarFile.toFile())) {
      return z.stream().map(ZipEntry::getName).toList();
    }
  }

  // ------------------------------------------------------------------ S3

  /** A queue an EventBridge rule sends every Tidemark event to; its URL. */
  private static String eventQueue() {
    try (EventBridgeClient events =
            moto.configure(EventBridgeClient.builder())
                .httpClient(UrlConnectionHttpClient.create())
                .build();
        SqsClient sqs =
            moto.configure(SqsClient.builder())
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
      String queue = sqs.createQueue(q -> q.queueName("tidemark-events")).queueUrl();
      String arn =
          sqs.getQueueAttributes(
                  a -> a.queueUrl(queue).attributeNames(QueueAttributeName.QUEUE_ARN))
              .attributes()
              .get(QueueAttributeName.QUEUE_ARN);
      events.putRule(
          r ->
              r.name("tidemark-events")
                  .eventPattern("{\"source\":[\"" + IngestRunFinished.SOURCE + "\"]}"));
      events.putTargets(t -> t.rule("tidemark-events").targets(x -> x.id("q").arn(arn)));
      return queue;
    }
  }

  /** The one event in the queue. */
  private static JsonNode onlyEvent(String queue) throws Exception {
    try (SqsClient sqs =
        moto.configure(SqsClient.builder()).httpClient(UrlConnectionHttpClient.create()).build()) {
      // The child has exited, so its event was put; EventBridge (moto) routes an event to its
      // rules' targets as it is put. Wait for the first, then take whatever else is there.
      List<JsonNode> received = new ArrayList<>();
      for (int i = 0; i < 10 && received.isEmpty(); i++) {
        for (var m :
            sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(1))
                .messages()) {
          received.add(Json.mapper().readTree(m.body()));
        }
      }
      List<Message> more;
      do {
        more =
            sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(0))
                .messages();
        for (var m : more) {
          received.add(Json.mapper().readTree(m.body()));
        }
      } while (!more.isEmpty());
      assertThat(received).hasSize(1);
      return received.get(0);
    }
  }

  private static S3Client s3() {
    return S3Lake.s3(moto);
  }

  /** The run reports on S3, by run id. */
  private static Map<String, IngestRunReport> reports(S3Client s3) {
    Map<String, IngestRunReport> out = new LinkedHashMap<>();
    s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("state/_runs/")).contents().stream()
        .filter(o -> o.key().endsWith(".json"))
        .sorted(Comparator.comparing(o -> o.key()))
        .forEach(
            o -> {
              String json = s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(o.key())).asUtf8String();
              IngestRunReport r = Json.read(json, IngestRunReport.class);
              out.put(r.runId(), r);
            });
    return out;
  }
}
