package io.tidemark.ingest.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.ingest.SharedSpark;
import io.tidemark.ingest.config.IngestSettings;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.report.DiscoveryMode;
import io.tidemark.model.report.IngestMode;
import io.tidemark.model.testing.raw.RawColumn;
import io.tidemark.model.testing.raw.RawFileWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

@Tag("spark")
class TestIngestCommand {
  static SparkSession spark;
  @TempDir Path dir;

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  final List<IngestSettings> seen = new ArrayList<>();

  @BeforeAll
  static void start() {
    spark = SharedSpark.session();
  }

  int run(String... args) {
    return IngestCommand.run(
        args,
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        (settings, master) -> {
          seen.add(settings);
          return spark;
        });
  }

  @Test
  void helpExplainsEveryOptionWithItsDefault() {
    assertThat(run("--help")).isZero();
    String help = out.toString();
    for (OptionSpec o : new CommandLine(new IngestCommand()).getCommandSpec().options()) {
      assertThat(help).contains(o.longestName());
      if (!o.usageHelp() && !o.versionHelp()) {
        assertThat(String.join(" ", o.description()))
            .as("description of " + o.longestName())
            .containsAnyOf("Default", "Required");
      }
    }
    assertThat(help).contains("Default: P2D").contains("Default: 0.1").contains("Exit codes");
    assertThat(seen).isEmpty();
  }

  @Test
  void configFileSetsOptionsAndFlagsOverrideIt() throws Exception {
    Path config = dir.resolve("ingest.json");
    Files.writeString(
        config,
        """
        {"raw-root": "%s", "warehouse": "%s", "state-root": "%s",
         "table": "silver.clients", "key-columns": ["tenant", "client_id"],
         "dataset": "customers", "change-marker": "updated_at", "operation-column": "op",
         "payload-columns": "customer_name,email",
         "lookback": "5d", "discovery": "watermark", "max-invalid-ratio": 0.25, "lease-ttl": "0",
         "cloudwatch-endpoint": "http://127.0.0.1:1", "catalog-name": "cli1"}
        """
            .formatted(dir.resolve("raw"), dir.resolve("wh"), dir.resolve("state")));
    int code = run("--config", config.toString(), "--lookback", "36h", "--mode", "full-refresh");
    // The raw root does not exist: the run itself is a config error, after the options parsed.
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains("[RAW_ROOT_NOT_FOUND]")
        .contains(dir.resolve("raw").toString());
    IngestSettings s = seen.get(0);
    assertThat(s.lookback()).isEqualTo(Duration.ofHours(36));
    assertThat(s.mode()).isEqualTo(IngestMode.FULL_REFRESH);
    assertThat(s.discovery()).isEqualTo(DiscoveryMode.WATERMARK);
    assertThat(s.maxInvalidRatio()).isEqualTo(0.25);
    assertThat(s.leaseTtl()).as("0: no lease").isZero();
    assertThat(s.dataset().curatedTable()).isEqualTo("silver.clients");
    assertThat(s.dataset().quarantineTable()).isEqualTo("silver.clients_quarantine");
    assertThat(s.tombstoneTable()).isEqualTo("silver.clients_tombstones");
    assertThat(s.dataset().keyColumns()).containsExactly("tenant", "client_id");
    assertThat(s.dataset().raw().location()).isEqualTo(dir.resolve("raw/customers").toString());
    assertThat(s.catalog().properties().get("uri"))
        .isEqualTo("jdbc:sqlite:" + dir.resolve("wh") + "/catalog.db");
    assertThat(s.cloudWatch()).isPresent();
    assertThat(s.cloudWatch().get().endpoint().get().toString()).isEqualTo("http://127.0.0.1:1");
  }

  @Test
  void badUsageExitsTwoNamingTheOptionAndValue() throws Exception {
    String[] base = concat(CUSTOMERS, "--raw-root", "r", "--warehouse", "w", "--state-root", "s");
    assertThat(run(concat(base, "--lookback", "two days"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--lookback'").contains("'two days'");

    assertThat(run(concat(base, "--key-columns", "1bad"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--key-columns'").contains("'1bad'");

    assertThat(run(concat(base, "--max-invalid-ratio", "lots"))).isEqualTo(2);
    assertThat(err.toString()).contains("--max-invalid-ratio").contains("lots");

    assertThat(run(concat(base, "--lease-ttl", "500ms"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--lease-ttl'").contains("'500ms'");

    assertThat(run(concat(base, "--lease-ttl", "0.5s"))).isEqualTo(2);
    assertThat(err.toString()).contains("--lease-ttl");

    assertThat(run(concat(base, "--mode", "sometimes"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--mode'").contains("'sometimes'");

    assertThat(run(concat(base, "--events-endpoint", "localhost:4010"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--events-endpoint'").contains("'localhost:4010'");

    assertThat(run(concat(base, "--events", "--deployment", "crm prod"))).isEqualTo(2);
    assertThat(err.toString()).contains("deployment").contains("'crm prod'");

    assertThat(
            run(concat(base, "--openlineage-url", "http://127.0.0.1:1", "--openlineage-file", "l")))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--openlineage-url or --openlineage-file, not both");

    assertThat(run(concat(CUSTOMERS, "--warehouse", "w", "--state-root", "s"))).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option '--raw-root'");

    // No dataset defaults: without a contract the flags must declare it, and the error says how.
    assertThat(run("--raw-root", "r", "--warehouse", "w", "--state-root", "s")).isEqualTo(2);
    assertThat(err.toString())
        .contains("Missing required option '--dataset'")
        .contains("--contract FILE");
    assertThat(run("--dataset", "customers", "--raw-root", "r", "--state-root", "s")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option '--key-columns'");
    assertThat(run("--dataset", "c", "--key-columns", "id", "--raw-root", "r", "--state-root", "s"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option '--change-marker'");

    assertThat(run(concat(base, "--no-such-flag"))).isEqualTo(2);
    assertThat(err.toString()).contains("--no-such-flag");

    Path config = dir.resolve("bad.json");
    Files.writeString(config, "{\"look-back\": \"2d\"}");
    assertThat(run("--config", config.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("unknown key 'look-back'").contains(config.toString());
    assertThat(seen).isEmpty();
  }

  @Test
  void verifiedPublishNamesWhatIsMissingAndNeverTheKey() throws Exception {
    // A catalog of its own: the runs that start configure the shared session's catalog.
    String[] base = concat(localRoots(), "--catalog-name", "cli_publish");
    // The key is not in this test's environment: the option says where it must be.
    assertThat(run(concat(base, "--verified-publish", "http://127.0.0.1:1"))).isEqualTo(2);
    assertThat(err.toString())
        .contains("'--verified-publish'")
        .contains("$TIDEMARK_RECONCILER_API_KEY")
        .contains("--reconciler-api-key-file");

    assertThat(run(concat(base, "--held-batch", "retry"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--held-batch'").contains("give --verified-publish");
    assertThat(run(concat(base, "--held-batch", "later"))).isEqualTo(2);
    assertThat(err.toString()).contains("'later'").contains("must be retry or discard");

    Path key = dir.resolve("reconciler.key");
    Files.writeString(key, "s3cr3t-key\n");
    String[] keyed = concat(base, "--reconciler-api-key-file", key.toString());
    assertThat(run(concat(keyed, "--verified-publish", "http://me:pw@127.0.0.1:1"))).isEqualTo(2);
    assertThat(err.toString()).contains("must not carry credentials").doesNotContain("pw@");
    assertThat(
            run(
                concat(
                    keyed, "--verified-publish", "http://127.0.0.1:1", "--audit-timeout", "soon")))
        .isEqualTo(2);
    assertThat(err.toString()).contains("'--audit-timeout'").contains("'soon'");
    assertThat(
            run(
                concat(
                    base,
                    "--verified-publish",
                    "http://127.0.0.1:1",
                    "--reconciler-api-key-file",
                    dir.resolve("absent.key").toString())))
        .isEqualTo(2);
    assertThat(err.toString()).contains("'--reconciler-api-key-file'").contains("absent.key");
    // A key an HTTP header cannot carry is refused without being shown.
    Path spaced = dir.resolve("spaced.key");
    Files.writeString(spaced, "\uFEFFs3cr3t key\n");
    assertThat(
            run(
                concat(
                    base,
                    "--verified-publish",
                    "http://127.0.0.1:1",
                    "--reconciler-api-key-file",
                    spaced.toString())))
        .isEqualTo(2);
    assertThat(err.toString()).contains("visible ASCII characters only").doesNotContain("s3cr3t");
    assertThat(seen).isEmpty();

    // Well formed: the run gets an audit by the service at the URL (the run itself then stops on
    // the made-up paths, before any audit).
    run(concat(keyed, "--verified-publish", "http://127.0.0.1:1/", "--held-batch", "DISCARD"));
    IngestSettings s = seen.get(0);
    assertThat(s.publish().on()).isTrue();
    assertThat(s.publish().where()).isEqualTo("http://127.0.0.1:1/");
    assertThat(s.publish().onHeld()).isEqualTo(io.tidemark.ingest.audit.HeldBatch.DISCARD);
    assertThat(out.toString() + err.toString()).doesNotContain("s3cr3t-key");
    // Without the option, no audit and the default for a held batch: refuse.
    run(base);
    assertThat(seen.get(1).publish().on()).isFalse();
    assertThat(seen.get(1).publish().onHeld()).isEqualTo(io.tidemark.ingest.audit.HeldBatch.REFUSE);
  }

  @Test
  void operatorModesTakeTheirOwnOptionsAndRefuseOthersNamingThem() {
    String[] base = localRoots();
    assertThat(run(concat(base, "--mode", "backfill", "--from", "2024-03-01"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--to'").contains("--mode backfill needs --from");

    assertThat(
            run(concat(base, "--mode", "backfill", "--from", "2024-03-05", "--to", "2024-03-01")))
        .isEqualTo(2);
    assertThat(err.toString()).contains("'--from'").contains("is after --to 2024-03-01");

    assertThat(run(concat(base, "--mode", "backfill", "--from", "March 1", "--to", "2024-03-01")))
        .isEqualTo(2);
    assertThat(err.toString()).contains("'--from'").contains("not a date YYYY-MM-DD");

    assertThat(run(concat(base, "--from", "2024-03-01", "--to", "2024-03-02"))).isEqualTo(2);
    assertThat(err.toString())
        .contains("'--from'")
        .contains("only --mode backfill takes a date range, not --mode incremental");

    assertThat(run(concat(base, "--mode", "sweep", "--reason", "NULL_KEY"))).isEqualTo(2);
    assertThat(err.toString())
        .contains("'--reason'")
        .contains("'NULL_KEY'")
        .contains("only --mode replay-quarantine takes it, not --mode sweep");
    assertThat(seen).isEmpty();

    // Well formed: the settings reach the run with the mode and its range (the run itself then
    // stops on the made-up paths).
    run(concat(base, "--mode", "backfill", "--from", "2024-03-01", "--to", "2024-03-02"));
    IngestSettings s = seen.get(0);
    assertThat(s.mode()).isEqualTo(IngestMode.BACKFILL);
    assertThat(s.operator().from()).isEqualTo(java.time.LocalDate.parse("2024-03-01"));
    assertThat(s.operator().to()).isEqualTo(java.time.LocalDate.parse("2024-03-02"));
    run(concat(base, "--mode", "sweep"));
    assertThat(seen.get(1).mode()).isEqualTo(IngestMode.SWEEP);
  }

  /** Runs with a dataset declared by flags over this test's folders, and more arguments. */
  int runDeclaredByFlags(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--dataset",
                "customers",
                "--key-columns",
                "customer_id",
                "--change-marker",
                "updated_at",
                "--raw-root",
                dir.resolve("raw").toString(),
                "--state-root",
                dir.resolve("state").toString()));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  @Test
  void aLogFormatOtherThanTextOrJsonIsAUsageErrorBeforeAnythingStarts() {
    int code = runDeclaredByFlags("--log-format", "xml");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo("Cannot start ingest: --log-format must be text or json, not 'xml'\n");
    assertThat(seen).as("no session started").isEmpty();
  }

  @Test
  void catalogPropertiesWithoutACatalogTypeAreAUsageErrorNamingTheOption() {
    int code = runDeclaredByFlags("--catalog-property", "warehouse=" + dir.resolve("wh"));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "Cannot start ingest: Invalid value for option '--catalog-property' ({warehouse="
                + dir.resolve("wh")
                + "}): Cannot build the catalog: no catalog type; add type=glue, type=rest,"
                + " type=hadoop or catalog-impl=CLASS")
        .doesNotContain("\tat ");
    assertThat(seen).isEmpty();

    // With a type the same properties are accepted.
    err.getBuffer().setLength(0);
    runDeclaredByFlags(
        "--catalog-name",
        "cli3",
        "--catalog-property",
        "type=hadoop",
        "--catalog-property",
        "warehouse=" + dir.resolve("wh"));
    assertThat(err.toString()).doesNotContain("--catalog-property");
    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).catalog().properties()).containsEntry("type", "hadoop");
  }

  @Test
  void runsALongSequenceDatasetWithoutOperationColumnAndRejectsABadBatchWithExitFour()
      throws Exception {
    List<RawColumn> schema =
        List.of(
            RawColumn.of("id", "BIGINT"),
            RawColumn.of("name", "VARCHAR"),
            RawColumn.of("seq", "BIGINT"));
    Path raw = dir.resolve("raw/accounts");
    write(
        raw.resolve("ingest_date=2024-03-01/a.parquet"),
        schema,
        List.of(
            Arrays.asList(1L, "one", 10L),
            Arrays.asList(2L, "two", 11L),
            Arrays.asList(1L, "uno", 12L)));
    String[] args = {
      "--raw-root", dir.resolve("raw").toString(),
      "--dataset", "accounts",
      "--warehouse", dir.resolve("wh").toString(),
      "--catalog-name", "cli2",
      "--state-root", dir.resolve("state").toString(),
      "--table", "curated.accounts",
      "--key-columns", "id",
      "--payload-columns", "name",
      "--change-marker", "seq",
      "--change-marker-type", "LONG",
      "--operation-column=",
    };
    assertThat(run(args)).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("SUCCEEDED")
        .contains("inserted 2")
        .contains("superseded 1");
    assertThat(seen.get(0).dataset().changeMarker().type()).isEqualTo(ChangeMarkerType.LONG);
    assertThat(seen.get(0).dataset().operationColumn()).isNull();
    List<Row> rows = spark.table("cli2.curated.accounts").orderBy("id").collectAsList();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).<String>getAs("name")).isEqualTo("uno");
    assertThat(rows.get(0).<Long>getAs("seq")).isEqualTo(12L);
    try (Stream<Path> reports = Files.walk(dir.resolve("state/_runs"))) {
      assertThat(reports.filter(p -> p.toString().endsWith(".json"))).hasSize(1);
    }

    write(
        raw.resolve("ingest_date=2024-03-02/a.parquet"),
        schema,
        List.of(Arrays.asList(3L, "three", 13L), Arrays.asList(4L, "four", null)));
    assertThat(run(concat(args, "--max-invalid-ratio", "0.2"))).isEqualTo(4);
    assertThat(err.toString()).contains("[BATCH_REJECTED]").contains("MISSING_CHANGE_MARKER=1");
    assertThat(spark.table("cli2.curated.accounts").count()).isEqualTo(2);
  }

  /** A contract with one dataset in Hive folders of its own name and format, and its catalog. */
  private Path accountsContract() throws Exception {
    Path contract = dir.resolve("tidemark.yaml");
    Files.writeString(
        contract,
        """
        version: 1
        catalog: {name: cli4, warehouse: wh}
        datasets:
          accounts:
            raw:
              location: raw/accounts
              layout: {kind: hive, column: day, date-format: yyyyMMdd}
            columns:
              id: long
              name: string
              balance: decimal(10,2)
              seq: long
            key-columns: [id]
            compared-columns: [name, balance]
            change-marker: {column: seq, type: sequence}
            curated: {table: silver.accounts}
        """);
    return contract;
  }

  @Test
  void theContractDeclaresTheDatasetAndTheCatalogAndFlagsOverrideWhereForOneRun() throws Exception {
    List<RawColumn> schema =
        List.of(
            RawColumn.of("id", "BIGINT"),
            RawColumn.of("name", "VARCHAR"),
            RawColumn.of("balance", "DECIMAL(10,2)"),
            RawColumn.of("seq", "BIGINT"));
    write(
        dir.resolve("raw/accounts/day=20240301/a.parquet"),
        schema,
        List.of(
            Arrays.asList(1L, "one", new java.math.BigDecimal("10.10"), 10L),
            Arrays.asList(2L, "two", new java.math.BigDecimal("0.01"), 11L)));
    Path contract = accountsContract();
    String[] args = {
      "--contract", contract.toString(), "--state-root", dir.resolve("s").toString()
    };
    assertThat(run(args)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("SUCCEEDED").contains("inserted 2");
    IngestSettings s = seen.get(0);
    assertThat(s.dataset().name()).as("the contract's only dataset").isEqualTo("accounts");
    assertThat(s.dataset().keyColumns()).containsExactly("id");
    assertThat(s.dataset().changeMarker().type()).isEqualTo(ChangeMarkerType.LONG);
    assertThat(s.dataset().raw().location()).isEqualTo(dir.resolve("raw/accounts").toString());
    assertThat(s.catalog().name()).isEqualTo("cli4");
    assertThat(s.catalog().properties().get("warehouse")).isEqualTo(dir.resolve("wh").toString());
    List<Row> rows = spark.table("cli4.silver.accounts").orderBy("id").collectAsList();
    assertThat(rows)
        .extracting(r -> r.<java.math.BigDecimal>getAs("balance"))
        .containsExactly(new java.math.BigDecimal("10.10"), new java.math.BigDecimal("0.01"));

    // Where it is and where it goes are the run's to override; what it is, the contract's.
    run(concat(args, "--dataset", "accounts", "--table", "gold.acc", "--raw-root", "/elsewhere"));
    IngestSettings o = seen.get(1);
    assertThat(o.dataset().curatedTable()).isEqualTo("gold.acc");
    assertThat(o.dataset().quarantineTable()).isEqualTo("gold.acc_quarantine");
    assertThat(o.tombstoneTable()).isEqualTo("gold.acc_tombstones");
    assertThat(o.dataset().raw().location()).isEqualTo("/elsewhere/accounts");
    assertThat(o.dataset().raw().layout().describe()).isEqualTo("folders day=YYYYMMDD");
    err.getBuffer().setLength(0);
    assertThat(run(concat(args, "--key-columns", "name"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--key-columns'").contains("change them there");
    assertThat(run(concat(args, "--dataset", "orders"))).isEqualTo(2);
    assertThat(err.toString()).contains("orders").contains("[accounts]");
    assertThat(seen).hasSize(2);
  }

  @Test
  void checkNamesMatchingFilesStraysColumnsAndWouldBeQuarantinedRowsAndIngestsNothing()
      throws Exception {
    Path contract = dir.resolve("orders.yaml");
    Files.writeString(
        contract,
        """
        version: 1
        catalog: {name: cli5, warehouse: wh}
        datasets:
          orders:
            raw: {location: raw/orders, layout: {kind: dms}}
            columns:
              Op: string
              order_id: string
              line_nr: int
              amount: decimal(12,2)
              change_seq: long
            key-columns: [order_id, line_nr]
            compared-columns: [amount]
            change-marker: {column: change_seq, type: sequence}
            operation: {column: Op, upsert: [I, U], delete: [D]}
            curated: {table: curated.orders}
        """);
    List<RawColumn> load =
        List.of(
            RawColumn.of("order_id", "VARCHAR"),
            RawColumn.of("line_nr", "INTEGER"),
            RawColumn.of("amount", "DECIMAL(12,2)"),
            RawColumn.of("change_seq", "BIGINT"));
    List<RawColumn> cdc =
        RawColumn.plus(
            java.util.stream.Stream.concat(
                    java.util.stream.Stream.of(RawColumn.of("Op", "VARCHAR")), load.stream())
                .toList(),
            RawColumn.of("commit_ts", "VARCHAR"));
    write(
        dir.resolve("raw/orders/LOAD00000001.parquet"),
        load,
        List.of(Arrays.asList("o1", 1, new java.math.BigDecimal("1.50"), 1L)));
    Path changes = dir.resolve("raw/orders/20240301-120000000.parquet");
    write(
        changes,
        cdc,
        List.of(
            Arrays.asList("U", "o1", 1, new java.math.BigDecimal("2.50"), 5L, "t"),
            Arrays.asList("Z", "o2", 1, new java.math.BigDecimal("3.00"), 6L, "t")));
    Files.writeString(dir.resolve("raw/orders/readme.txt"), "not data");
    String[] args = {
      "--check", "--contract", contract.toString(), "--state-root", dir.resolve("s").toString()
    };
    assertThat(run(args)).as(err.toString()).isEqualTo(3);
    assertThat(out.toString())
        .contains("2 file(s) match the layout")
        .contains("LOAD00000001.parquet  order_id string, line_nr int, amount decimal(12,2)")
        .contains("Op string, order_id string")
        .contains("commit_ts string (undeclared)")
        .contains("1 stray entry")
        .contains("readme.txt (not a .parquet data file)")
        .contains("1 row(s) would be quarantined: {UNKNOWN_OPERATION=1}")
        .contains("PROBLEMS");
    assertThat(dir.resolve("s")).as("no run report: nothing ran").doesNotExist();
    assertThat(dir.resolve("wh")).as("no table: nothing was written").doesNotExist();

    Files.delete(dir.resolve("raw/orders/readme.txt"));
    Files.delete(changes);
    write(
        changes,
        cdc,
        List.of(Arrays.asList("D", "o1", 1, new java.math.BigDecimal("2.50"), 5L, "t")));
    out.getBuffer().setLength(0);
    // A check writes nothing, so it needs no state root.
    assertThat(run("--check", "--contract", contract.toString())).as(out + "" + err).isZero();
    assertThat(out.toString()).contains("No row would be quarantined").contains("CLEAN");
  }

  @Test
  void aContractThatCannotLoadIsRefusedBeforeSparkWithItsMessageAndExitTwo() throws Exception {
    Path contract = dir.resolve("orders.yaml");
    Files.writeString(
        contract,
        """
        version: 1
        datasets:
          orders:
            raw: {location: raw/orders, layout: {kind: dms}}
            columns: {order_id: string, seq: long}
            key-columns: [order_id, line_nr]
            change-marker: {column: seq, type: sequence}
            curated: {table: curated.orders}
        """);
    assertThat(run("--contract", contract.toString(), "--state-root", "s")).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "Cannot load contract orders.yaml: datasets.orders.key-columns[1] 'line_nr' is not a"
                + " column")
        .doesNotContain("\tat ");
    assertThat(run("--contract", dir.resolve("none.yaml").toString(), "--state-root", "s"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("Cannot load contract").contains("none.yaml");
    assertThat(seen).as("no Spark session was asked for").isEmpty();
  }

  @Test
  void replayOptionsAreExplainedAndRefusedOutsideTheReplayModeOrWithAnUnknownReason() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains("replay-quarantine")
        .contains("--reason")
        .contains("FUTURE_CHANGE_MARKER")
        .contains("--batch-id")
        .contains("--file")
        .contains("--dry-run");
    String[] base = localRoots();
    assertThat(run(concat(base, "--reason", "NULL_KEY"))).isEqualTo(2);
    assertThat(err.toString())
        .contains("'--reason'")
        .contains("only --mode replay-quarantine takes it, not --mode incremental");
    assertThat(run(concat(base, "--mode", "full-refresh", "--dry-run"))).isEqualTo(2);
    assertThat(err.toString()).contains("'--dry-run'").contains("not --mode full-refresh");
    assertThat(run(concat(base, "--mode", "replay-quarantine", "--reason", "FUTURE_MARKER")))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("'--reason'")
        .contains("FUTURE_MARKER")
        .contains("is not a quarantine reason code")
        .contains("FUTURE_CHANGE_MARKER");
    assertThat(seen).isEmpty();

    // Before any ingest there is nothing to replay: not an error, and the output says why.
    assertThat(run(concat(base, "--mode", "replay-quarantine", "--dry-run")))
        .as(err.toString())
        .isZero();
    assertThat(out.toString()).contains("NOTHING_TO_DO").contains("Nothing to replay");
    assertThat(seen).singleElement().satisfies(s -> assertThat(s.operator().dryRun()).isTrue());
  }

  @Test
  void crashDrillHaltsAtItsPointOnly() {
    List<Integer> halts = new ArrayList<>();
    var hook =
        IngestCommand.crashDrill(io.tidemark.ingest.kernel.FailurePoint.BEFORE_COMMIT, halts::add);
    hook.reached(io.tidemark.ingest.kernel.FailurePoint.AFTER_READ, "b1");
    hook.reached(io.tidemark.ingest.kernel.FailurePoint.AFTER_QUARANTINE_WRITE, "b1");
    assertThat(halts).isEmpty();
    hook.reached(io.tidemark.ingest.kernel.FailurePoint.BEFORE_COMMIT, "b1");
    assertThat(halts).containsExactly(137);
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("--crash-at").contains("BEFORE_COMMIT");
  }

  static void write(Path target, List<RawColumn> columns, List<? extends List<?>> rows) {
    RawFileWriter.writeOnce(target, columns, rows);
  }

  /** The demo's customers dataset, declared by flags (the job has no defaults for it). */
  static final String[] CUSTOMERS = {
    "--dataset", "customers",
    "--key-columns", "customer_id",
    "--change-marker", "updated_at",
    "--operation-column", "op",
    "--payload-columns", "customer_name,email"
  };

  /** The three roots of a local run, under this test's folder, and the customers dataset. */
  private String[] localRoots() {
    return concat(
        CUSTOMERS,
        "--raw-root",
        dir.resolve("raw").toString(),
        "--warehouse",
        dir.resolve("wh").toString(),
        "--state-root",
        dir.resolve("state").toString());
  }

  static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
