package io.tidemark.e2e;

import io.tidemark.ingest.kernel.FailurePoint;
import io.tidemark.ingest.kernel.FailurePoints;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.ReconciliationMode;
import io.tidemark.model.report.ReconciliationReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.testing.raw.CustomerScenario;
import io.tidemark.model.testing.raw.Delivery;
import io.tidemark.model.testing.raw.ExpectedState;
import io.tidemark.model.testing.raw.RawFile;
import io.tidemark.model.testing.raw.RawRecord;
import io.tidemark.reconcile.alarms.AlarmState;
import io.tidemark.reconcile.alarms.AlarmStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The one-command demo: generates a week of customer exports, ingests them day by day (one run
 * crashes and is retried), reconciles, damages the curated table out of band, reconciles again and
 * shows the alarms. Everything runs locally on the embedded default; nothing needs AWS.
 */
public final class DemoMain {
  private static final Duration FUTURE_TOLERANCE = Duration.ofHours(1);
  private static final int CRASH_DAY = 4;
  private static final String MARKER = ".tidemark-demo";

  private final PrintStream out = System.out;
  private final List<String> problems = new ArrayList<>();

  private void check(boolean holds, String problem) {
    if (!holds) {
      problems.add(problem);
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of("demo-output");
    int customers = 200_000;
    long seed = 42;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir" -> dir = Path.of(args[++i]);
        case "--customers" -> customers = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--help", "-h" -> {
          System.out.println(
              """
              usage: bin/demo [--dir DIR] [--customers N] [--seed S]

                --dir DIR        where raw files, the Iceberg warehouse and reports go
                                 (default: demo-output; emptied at start)
                --customers N    customers in the initial export (default: 200000)
                --seed S         random seed of the generated data (default: 42)
              """);
          return;
        }
        default -> {
          System.err.println("Unknown option " + args[i] + " (try --help)");
          System.exit(2);
        }
      }
    }
    if (customers < CustomerScenario.MIN_CUSTOMERS) {
      System.err.println(
          "--customers must be at least " + CustomerScenario.MIN_CUSTOMERS + ", not " + customers);
      System.exit(2);
    }
    System.exit(new DemoMain().run(dir.toAbsolutePath(), customers, seed));
  }

  int run(Path dir, int customers, long seed) throws IOException {
    Instant started = Instant.now();
    Path marker = dir.resolve(MARKER);
    if (Files.exists(dir) && !Files.exists(marker) && !isEmpty(dir)) {
      System.err.println(
          "Cannot use "
              + dir
              + ": it is not empty and was not made by the demo (no "
              + MARKER
              + "). Pass an empty or new folder with --dir.");
      return 2;
    }
    if (Files.exists(marker)) {
      out.println("Emptying " + dir + " (left by an earlier demo run)");
      deleteTree(dir);
    }
    Files.createDirectories(dir);
    Files.writeString(
        marker, "Made by the Tidemark demo; bin/demo empties this folder on its next run.\n");
    out.println("== Tidemark demo: " + dir);
    out.println("Starting a local Spark session (local[2], loopback only)...");
    SparkSession spark = Pipeline.localSpark(dir);
    spark.sparkContext().setLogLevel("ERROR");
    boolean damageCaught;
    try (Pipeline pipeline = new Pipeline(dir, spark)) {
      List<Delivery> deliveries =
          new CustomerScenario(customers, seed, LocalDate.now(ZoneOffset.UTC)).deliveries();

      out.println();
      out.println(
          "== 1-2. Generate a week of exports and ingest them day by day (seed " + seed + ")");
      for (Delivery day : deliveries) {
        pipeline.land(day);
        out.printf(
            "day %d  %s  landed %d file(s), %,d rows: %s%n",
            day.day(), day.runDate(), day.files().size(), day.rows(), day.story());
        if (day.day() == CRASH_DAY) {
          long snapshots = pipeline.snapshotCount();
          long commits = pipeline.batchCommitCount();
          Map<String, ExpectedState.Row> before = pipeline.curated();
          try {
            pipeline.ingest(SimulatedCrash.at(FailurePoint.BEFORE_COMMIT));
            problems.add("the simulated crash on day " + CRASH_DAY + " did not happen");
          } catch (SimulatedCrash crash) {
            out.println(
                "   CRASH  the run died just before its commit (data read, quarantine written)");
          }
          boolean untouched =
              pipeline.snapshotCount() == snapshots && pipeline.curated().equals(before);
          out.printf(
              "   table after the crash: %d snapshot(s), %s%n",
              pipeline.snapshotCount(), untouched ? "rows unchanged" : "CHANGED");
          check(untouched, "the crashed run changed the table");
          IngestRunReport retry = pipeline.ingest(FailurePoints.none()).report();
          out.println("   RETRY  " + Summaries.ingest(retry));
          Map<String, ExpectedState.Row> expected =
              ExpectedState.of(pipeline.landed(), Instant.now(), FUTURE_TOLERANCE);
          // curated() fails on a key seen twice; the map's size is the number of distinct keys.
          Map<String, ExpectedState.Row> curated = pipeline.curated();
          long rows = pipeline.curatedCount();
          boolean once = pipeline.batchCommitCount() == commits + 1;
          out.printf(
              "   the retry committed %s (%d -> %d batch commits); curated rows %,d, distinct keys %,d,"
                  + " expected %,d: %s%n",
              once ? "once" : "NOT once",
              commits,
              pipeline.batchCommitCount(),
              rows,
              curated.size(),
              expected.size(),
              curated.equals(expected) && rows == curated.size() ? "identical" : "DIFFERENT");
          check(once, "the retry did not commit exactly once");
          check(
              curated.equals(expected) && rows == curated.size(),
              "after the retry the table differs from the expected state");
        } else {
          IngestRunReport report = pipeline.ingest(FailurePoints.none()).report();
          out.println("   " + Summaries.ingest(report));
        }
      }
      Map<String, ExpectedState.Row> expected =
          ExpectedState.of(pipeline.landed(), Instant.now(), FUTURE_TOLERANCE);
      Map<String, ExpectedState.Row> curated = pipeline.curated();
      out.printf(
          "After 7 days of changes: curated %,d rows, expected (computed from raw, independently) %,d: %s%n",
          curated.size(), expected.size(), curated.equals(expected) ? "identical" : "DIFFERENT");
      out.printf(
          "Quarantined rows: %,d (table %s)%n",
          pipeline.quarantinedCount(), pipeline.contract().quarantineTable());
      if (!curated.equals(expected)) {
        out.println("The curated table does not match the expected state: stopping.");
        return 1;
      }

      out.println();
      out.println("== 3. Reconcile (DuckDB over raw Parquet and the curated Iceberg table)");
      ReconciliationReport clean =
          pipeline.reconciler().run(Pipeline.DATASET, ReconciliationMode.FULL, null, null, "demo");
      printReconciliation(clean);
      List<AlarmStatus> cleanAlarms = pipeline.reconciler().alarms();
      printAlarms(cleanAlarms);
      check(
          clean.status() == io.tidemark.model.report.ReconciliationStatus.PASSED,
          "the reconciliation of a correct table did not pass");
      check(
          cleanAlarms.stream().noneMatch(a -> a.state() == AlarmState.ALARM),
          "an alarm fired on a correct table");

      out.println();
      out.println("== 4. Damage the curated table out of band, then reconcile again");
      List<String> keys = new ArrayList<>(expected.keySet());
      List<String> dropped =
          List.of(keys.get(keys.size() / 7), keys.get(keys.size() / 3), keys.get(keys.size() / 2));
      String altered = keys.get(keys.size() / 5);
      ExpectedState.Row resurrected = lastUpsertOfADeletedKey(pipeline, expected);
      out.println("   dropping rows " + dropped);
      out.println("   altering the email of " + altered);
      out.println("   bringing back " + resurrected.customerId() + ", which raw deleted");
      pipeline.damage(dropped, altered, resurrected);
      ReconciliationReport damaged =
          pipeline.reconciler().run(Pipeline.DATASET, ReconciliationMode.FULL, null, null, "demo");
      printReconciliation(damaged);
      io.tidemark.model.report.RuleResult values =
          damaged.results().stream()
              .filter(r -> r.ruleId().equals("value_mismatches"))
              .findFirst()
              .orElseThrow();
      Summaries.diff(values).forEach(line -> out.println("   " + line));
      check(
          values.diff() != null
              && values.diff().samples().stream()
                  .anyMatch(
                      k ->
                          k.key().equals(altered) && k.differingColumns().equals(List.of("email"))),
          "the value_mismatches difference does not name the altered email of " + altered);
      List<AlarmStatus> alarms = pipeline.reconciler().alarms();
      printAlarms(alarms);
      damageCaught = alarms.stream().anyMatch(a -> a.state() == AlarmState.ALARM);

      out.println();
      out.println("== 5. Where everything is");
      out.println("   dataset contract   " + pipeline.contractFile());
      out.println("   raw files          " + pipeline.rawRoot().resolve("customers"));
      out.println(
          "   Iceberg warehouse  "
              + pipeline.warehouse()
              + "  (JDBC catalog "
              + pipeline.warehouse().resolve("catalog.db")
              + ")");
      out.println(
          "   tables             "
              + pipeline.contract().curatedTable()
              + ", "
              + pipeline.contract().quarantineTable());
      out.println("   ingest run reports " + pipeline.stateRoot().resolve("_runs"));
      out.println("   reconciliations    " + pipeline.stateRoot().resolve("_reconciliation"));
      out.println("   Look at them through the service (REST, history, alarms):");
      out.println("     bin/reconciler --demo " + dir);
      out.println(
          "   then open its status page, http://127.0.0.1:8080/, or: curl"
              + " localhost:8080/api/reconciliations   curl localhost:8080/api/alarms");
    } finally {
      spark.stop();
    }
    out.printf("%nDemo finished in %ds.%n", Duration.between(started, Instant.now()).toSeconds());
    check(damageCaught, "the damage did not raise an alarm");
    if (!problems.isEmpty()) {
      out.println("The demo found problems (each is a bug):");
      problems.forEach(p -> out.println("   - " + p));
      return 1;
    }
    return 0;
  }

  private void printReconciliation(ReconciliationReport report) {
    out.printf(
        "   reconciliation %s: %s in %.1fs%n",
        report.id(),
        report.status(),
        Duration.between(report.startedAt(), report.finishedAt()).toMillis() / 1000.0);
    for (RuleResult r : report.results()) {
      out.println("   " + Summaries.rule(r));
    }
  }

  private void printAlarms(List<AlarmStatus> alarms) {
    long alarming = alarms.stream().filter(a -> a.state() == AlarmState.ALARM).count();
    out.printf(
        "   alarms: %d in ALARM, %d OK, %d with insufficient data%n",
        alarming,
        alarms.stream().filter(a -> a.state() == AlarmState.OK).count(),
        alarms.stream().filter(a -> a.state() == AlarmState.INSUFFICIENT_DATA).count());
    alarms.stream()
        .filter(a -> a.state() == AlarmState.ALARM)
        .forEach(a -> out.println("   ALARM " + a.alarmName() + ": " + a.reason()));
  }

  static ExpectedState.Row lastUpsertOfADeletedKey(
      Pipeline pipeline, Map<String, ExpectedState.Row> expected) {
    Map<String, RawRecord> lastUpsert = new java.util.HashMap<>();
    for (RawFile f : pipeline.landed()) {
      for (RawRecord r : f.rows()) {
        if (r.customerId() != null
            && !r.customerId().isBlank()
            && "U".equals(r.op())
            && r.updatedAt() != null
            && r.updatedAt().isBefore(Instant.now())) {
          lastUpsert.merge(
              r.customerId(), r, (a, b) -> a.updatedAt().isAfter(b.updatedAt()) ? a : b);
        }
      }
    }
    return lastUpsert.values().stream()
        .filter(r -> !expected.containsKey(r.customerId()))
        .min(Comparator.comparing(RawRecord::customerId))
        .map(r -> new ExpectedState.Row(r.customerId(), r.customerName(), r.email(), r.updatedAt()))
        .orElseThrow(() -> new IllegalStateException("the scenario deleted no key"));
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
