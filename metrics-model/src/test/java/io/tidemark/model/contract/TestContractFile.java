package io.tidemark.model.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.model.config.Aggregate;
import io.tidemark.model.config.ChangeMarkerType;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.config.Severity;
import io.tidemark.model.contract.layout.Layout;
import io.tidemark.model.testing.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestContractFile {
  private static final String ORDERS =
      """
      version: 1
      datasets:
        orders:
          raw:
            location: raw/orders
            layout: {kind: dms}
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
      """;

  private static ContractFile parse(String text) {
    return ContractFile.parse("/somewhere/orders.yaml", text, "/data/contracts");
  }

  private static String with(String from, String to) {
    if (!ORDERS.contains(from)) {
      throw new IllegalArgumentException("not in the sample: " + from);
    }
    return ORDERS.replace(from, to);
  }

  @Test
  void aDmsDatasetReadsWhole() {
    DatasetContract d = parse(ORDERS).dataset("orders");
    assertThat(d.raw().location()).isEqualTo("/data/contracts/raw/orders");
    assertThat(d.raw().layout()).isEqualTo(new Layout.Dms(null));
    assertThat(d.keyColumns()).containsExactly("order_id", "line_nr");
    assertThat(d.columns().get("amount")).isEqualTo(ColumnType.decimal(12, 2));
    assertThat(d.changeMarker().type()).isEqualTo(ChangeMarkerType.LONG);
    assertThat(d.operation().meaning("I")).isEqualTo(OperationMapping.Meaning.UPSERT);
    assertThat(d.operation().meaning("D")).isEqualTo(OperationMapping.Meaning.DELETE);
    assertThat(d.operation().meaning("d")).isEqualTo(OperationMapping.Meaning.UNKNOWN);
    assertThat(d.operation().meaning(null)).isEqualTo(OperationMapping.Meaning.UPSERT);
    assertThat(d.contractColumns())
        .containsExactly("order_id", "line_nr", "change_seq", "Op", "amount");
    assertThat(d.requiredColumns()).containsExactly("order_id", "line_nr", "change_seq", "amount");
    assertThat(d.quarantineTable()).isEqualTo("curated.orders_quarantine");
    assertThat(d.tombstoneTable()).isEqualTo("curated.orders_tombstones");
    assertThat(d.reconcile().sampleColumns()).containsExactly("order_id", "line_nr");
    assertThat(d.reconcile().rules())
        .as("every kind that needs nothing declared (not aggregate_match, custom_sql, ...)")
        .hasSize(RuleSpec.defaults().size())
        .allMatch(r -> r.kind().byDefault());
  }

  @Test
  void aColumnTheKeyNamesMustBeDeclared() {
    assertThatThrownBy(() -> parse(with("      line_nr: int\n", "")))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.key-columns[1] 'line_nr' is not a"
                + " column");
  }

  @Test
  void everyMistakeNamesItsKey() {
    assertThatThrownBy(() -> parse(with("{kind: dms}", "{kind: flat}")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.raw.layout.kind 'flat' must be one"
                + " of [hive, date-path, dms, arrival]");
    assertThatThrownBy(() -> parse(with("decimal(12,2)", "decimal(12,x)")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.columns.amount 'decimal(12,x)' is"
                + " not a column type (string, int, long, decimal(p,s), date, timestamp,"
                + " boolean)");
    assertThatThrownBy(() -> parse(with("type: sequence", "type: timestamp")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.change-marker.column 'change_seq'"
                + " is declared long but a timestamp marker is timestamp");
    assertThatThrownBy(() -> parse(with("delete: [D]", "delete: [U]")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.operation.delete[0] 'U' is also an"
                + " upsert value");
    assertThatThrownBy(() -> parse(with("compared-columns: [amount]", "compared-columns: [Op]")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.compared-columns[0] 'Op' is a key,"
                + " change-marker or operation column; compare payload columns only");
    assertThatThrownBy(() -> parse(with("curated: {table: curated.orders}", "curated: {}")))
        .hasMessage("Cannot load contract orders.yaml: datasets.orders.curated.table is required");
    assertThatThrownBy(() -> parse(with("key-columns:", "keys:")))
        .hasMessageStartingWith(
            "Cannot load contract orders.yaml: datasets.orders.keys is not a key here (known:");
    assertThatThrownBy(
            () -> parse(with("      line_nr: int\n", "      line_nr: int\n      _POS: int\n")))
        .hasMessageStartingWith(
            "Cannot load contract orders.yaml: datasets.orders.columns._POS '_POS' is the name of"
                + " one of Iceberg's metadata columns [_file, _pos,");
    assertThatThrownBy(() -> parse(with("version: 1", "version: 2")))
        .hasMessage("Cannot load contract orders.yaml: version '2' must be 1");
    assertThatThrownBy(() -> parse("datasets: [\n"))
        .hasMessageStartingWith("Cannot load contract orders.yaml: not YAML or JSON:");
    assertThatThrownBy(() -> parse(with("{kind: dms}", "{kind: date-path, pattern: YYYY/MM}")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.raw.layout.pattern 'YYYY/MM' must"
                + " name DD exactly once (with YYYY, MM, DD, HH)");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {freshness: {threshold: -1}}}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.freshness.threshold"
                + " '-1.0' must be a finite number >= 0");
  }

  /**
   * Samples show keys, nothing else: a sample column that is no key column would promise values the
   * reports do not hold, so it is refused rather than silently ignored.
   */
  @Test
  void sampleColumnsAreKeyColumns() {
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {sample-columns: [order_id, amount]}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.sample-columns[1]"
                + " 'amount' is not a key column: samples show keys only, the key columns listed"
                + " in clear and the others hashed");
  }

  /**
   * A difference shows compared columns only: a sensitive column that is not one would hide nothing
   * and suggest a protection that is not there, so it is refused; a compared one is kept.
   */
  @Test
  void sensitiveColumnsAreComparedColumns() {
    assertThat(
            parse(with("  orders:\n", "  orders:\n    reconcile: {sensitive-columns: [amount]}\n"))
                .dataset("orders")
                .reconcile()
                .sensitiveColumns())
        .containsExactly("amount");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {sensitive-columns: [order_id]}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.sensitive-columns[0]"
                + " 'order_id' is not a compared column: a difference shows the compared columns'"
                + " values only");
  }

  @Test
  void aggregateMatchResolvesItsColumnsAndRefusesWhatCannotApply() {
    DatasetContract d =
        parse(with("  orders:\n", "  orders:\n    reconcile: {rules: {aggregate_match: {}}}\n"))
            .dataset("orders");
    RuleSpec rule =
        d.reconcile().rules().stream()
            .filter(r -> r.kind() == RuleKind.AGGREGATE_MATCH)
            .findFirst()
            .orElseThrow();
    assertThat(rule.columns()).as("every compared column").containsExactly("amount");
    assertThat(d.aggregates(rule, "amount"))
        .containsExactly(Aggregate.SUM, Aggregate.MIN, Aggregate.MAX, Aggregate.NULL_COUNT);

    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {totals: {kind: aggregate_match,"
                            + " columns: [order_id]}}}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.totals.columns[0]"
                + " 'order_id' is not a compared column: aggregate_match matches the compared"
                + " columns only");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {sensitive-columns: [amount], rules:"
                            + " {aggregate_match: {columns: [amount]}}}\n")))
        .hasMessageContaining(
            "'amount' is a sensitive column: its aggregates would show in reports and metrics");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {aggregate_match: {aggregates:"
                            + " [avg]}}}\n")))
        .hasMessageContaining("'avg' unknown aggregate (known: [sum, min, max, count_distinct,");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {count_match: {columns:"
                            + " [amount]}}}\n")))
        .hasMessageContaining("applies to aggregate_match and referential_integrity only");
  }

  @Test
  void aCustomRuleIsDeclaredWithAQueryThatOnlyReads() {
    DatasetContract d =
        parse(
                with(
                    "  orders:\n",
                    "  orders:\n    reconcile: {rules: {negative: {kind: custom_sql, sql: 'SELECT"
                        + " key FROM curated WHERE amount < 0'}}}\n"))
            .dataset("orders");
    assertThat(d.reconcile().rules())
        .filteredOn(r -> r.kind() == RuleKind.CUSTOM_SQL)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.id()).isEqualTo("negative");
              assertThat(r.sql()).isEqualTo("SELECT key FROM curated WHERE amount < 0");
            });
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {negative: {kind: custom_sql, sql:"
                            + " 'SELECT key FROM other_db.orders'}}}\n")))
        .hasMessageStartingWith(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.negative.sql")
        .hasMessageContaining("may only read raw_latest, raw_versions, curated");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {negative: {kind: custom_sql}}}\n")))
        .hasMessageContaining("negative.sql is required");
  }

  /** Orders that name their customer, beside the customers they name, with one rule between. */
  private static String ordersOfCustomers(String rule, String customerKeyType) {
    return with(
                "  orders:\n",
                "  orders:\n    reconcile: {rules: {customer_known: " + rule + "}}\n")
            .replace(
                "      change_seq: long\n", "      change_seq: long\n      customer_id: string\n")
        + "  customers:\n"
        + "    raw: {location: raw/customers, layout: {kind: hive, column: ingest_date}}\n"
        + "    columns: {customer_id: "
        + customerKeyType
        + ", name: string, updated_at: timestamp}\n"
        + "    key-columns: [customer_id]\n"
        + "    compared-columns: [name]\n"
        + "    change-marker: {column: updated_at, type: timestamp}\n"
        + "    curated: {table: curated.customers}\n";
  }

  /**
   * A reference names the columns that hold another dataset's key and that dataset; the file
   * refuses what cannot match, before any engine runs.
   */
  @Test
  void aReferentialRuleNamesItsColumnsAndTheDatasetWhoseKeysTheyHold() {
    String rule = "{kind: referential_integrity, columns: [customer_id], references: customers}";
    DatasetContract d = parse(ordersOfCustomers(rule, "string")).dataset("orders");
    assertThat(d.reconcile().rules())
        .filteredOn(r -> r.kind() == RuleKind.REFERENTIAL_INTEGRITY)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.id()).isEqualTo("customer_known");
              assertThat(r.columns()).containsExactly("customer_id");
              assertThat(r.references()).isEqualTo("customers");
            });
    assertThatThrownBy(() -> parse(ordersOfCustomers(rule, "long")))
        .hasMessage(
            "Cannot load contract orders.yaml:"
                + " datasets.orders.reconcile.rules.customer_known.columns[0] 'customer_id' is of"
                + " type string, but the key column 'customer_id' of dataset 'customers' it"
                + " references is of type long");
    assertThatThrownBy(
            () ->
                parse(
                    ordersOfCustomers(
                        "{kind: referential_integrity, columns: [customer_id, order_id],"
                            + " references: customers}",
                        "string")))
        .hasMessageContaining(
            "customer_known.columns '[customer_id, order_id]' names 2 column(s), but dataset"
                + " 'customers' has 1 key column(s) [customer_id]");
    assertThatThrownBy(
            () ->
                parse(
                    ordersOfCustomers(
                        "{kind: referential_integrity, columns: [client], references: customers}",
                        "string")))
        .hasMessageContaining("customer_known.columns[0] 'client' is not a column");
    assertThatThrownBy(
            () ->
                parse(
                    ordersOfCustomers(
                        "{kind: referential_integrity, columns: [customer_id]}", "string")))
        .hasMessageContaining(
            "customer_known.references is required: referential_integrity names the columns");
    assertThatThrownBy(
            () -> parse(ordersOfCustomers("{kind: count_match, references: customers}", "string")))
        .hasMessageContaining(
            "customer_known.references 'customers' applies to referential_integrity only");
  }

  /** Two rule ids that would name one alarm are refused, naming both: one would watch nothing. */
  @Test
  void ruleIdsThatWouldNameOneAlarmAreRefused() {
    String custom = "{kind: custom_sql, sql: 'SELECT key FROM curated WHERE amount < 0'}";
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {check_2: "
                            + custom
                            + ", check2: "
                            + custom
                            + "}}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.check2 'check2'"
                + " would name its alarm RuleCheck2Failing, as 'check_2' does; give the rule"
                + " another id");
    assertThatThrownBy(
            () ->
                parse(
                    with(
                        "  orders:\n",
                        "  orders:\n    reconcile: {rules: {countMatch: " + custom + "}}\n")))
        .hasMessageContaining("as 'count_match' does");
  }

  /** Readers pin the verified tag by name, so the name is checked where it is declared. */
  @Test
  void theVerifiedTagIsNamedOnceOrTurnedOff() {
    assertThat(parse(with("", "")).dataset("orders").reconcile().tag())
        .contains("tidemark_verified");
    assertThat(
            parse(with("  orders:\n", "  orders:\n    reconcile: {verified-tag: orders_proven}\n"))
                .dataset("orders")
                .reconcile()
                .tag())
        .contains("orders_proven");
    assertThat(
            parse(with("  orders:\n", "  orders:\n    reconcile: {verified-tag: ''}\n"))
                .dataset("orders")
                .reconcile()
                .tag())
        .isEmpty();
    assertThatThrownBy(
            () ->
                parse(with("  orders:\n", "  orders:\n    reconcile: {verified-tag: \"a tag\"}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.verified-tag 'a tag' is not"
                + " a tag name: a letter or _, then letters, digits, _ or -, at most 100");
    assertThatThrownBy(
            () -> parse(with("  orders:\n", "  orders:\n    reconcile: {verified-tag: main}\n")))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.verified-tag 'main' is the"
                + " table's main branch, not a tag name");
  }

  @Test
  void noColumnHasADefault() {
    assertThatThrownBy(
            () -> parse(with("    change-marker: {column: change_seq, type: sequence}\n", "")))
        .hasMessage("Cannot load contract orders.yaml: datasets.orders.change-marker is required");
    assertThatThrownBy(() -> parse(with("    key-columns: [order_id, line_nr]\n", "")))
        .hasMessage("Cannot load contract orders.yaml: datasets.orders.key-columns is required");
  }

  @Test
  void rulesChangeTheirDefaultsOrGo() {
    DatasetContract d =
        parse(
                with(
                    "  orders:\n",
                    "  orders:\n"
                        + "    reconcile:\n"
                        + "      schedule-mode: window\n"
                        + "      future-tolerance: PT2H\n"
                        + "      sample-columns: [order_id]\n"
                        + "      rules:\n"
                        + "        count_match: {threshold: 0.01, tolerance: ratio, severity: warning}\n"
                        + "        stale_versions: {enabled: false}\n"
                        + "        big_orders_fresh: {kind: freshness, threshold: 600}\n"))
            .dataset("orders");
    DatasetContract.Reconcile r = d.reconcile();
    assertThat(r.scheduleMode()).isEqualTo("window");
    assertThat(r.futureTolerance()).isEqualTo(Duration.ofHours(2));
    assertThat(r.sampleColumns()).containsExactly("order_id");
    assertThat(r.rule(RuleKind.STALE_VERSIONS)).isEmpty();
    assertThat(r.rule(RuleKind.COUNT_MATCH).orElseThrow().severity()).isEqualTo(Severity.WARNING);
    assertThat(r.rules().stream().filter(x -> x.id().equals("big_orders_fresh")).toList())
        .singleElement()
        .satisfies(x -> assertThat(x.kind()).isEqualTo(RuleKind.FRESHNESS));
    assertThat(r.rule(RuleKind.COUNT_MATCH).orElseThrow().dynamic()).isNull();
  }

  @Test
  void aThresholdCanBeLearnedFromTheRulesHistory() {
    DatasetContract d =
        parse(
                with(
                    "  orders:\n",
                    "  orders:\n"
                        + "    reconcile:\n"
                        + "      rules:\n"
                        + "        freshness: {threshold: 86400, dynamic: {last: 10, stddevs: 3}}\n"
                        + "        count_match: {dynamic: {last: 7, percent-of-mean: 150}}\n"))
            .dataset("orders");
    io.tidemark.model.config.DynamicThreshold fresh =
        d.reconcile().rule(RuleKind.FRESHNESS).orElseThrow().dynamic();
    assertThat(fresh.last()).isEqualTo(10);
    assertThat(fresh.stddevs()).isEqualTo(3.0);
    assertThat(d.reconcile().rule(RuleKind.FRESHNESS).orElseThrow().threshold())
        .as("the static threshold, while the rule learns")
        .isEqualTo(86400.0);
    io.tidemark.model.config.DynamicThreshold count =
        d.reconcile().rule(RuleKind.COUNT_MATCH).orElseThrow().dynamic();
    assertThat(count.percentOfMean()).isEqualTo(150.0);
    assertThat(count.threshold(java.util.List.of(2.0, 4.0, 6.0, 0.0, 2.0, 4.0, 3.0)))
        .isEqualTo(4.5);
    assertThat(fresh.threshold(java.util.List.of(1.0, 3.0, 5.0, 1.0, 3.0, 5.0, 1.0, 3.0, 5.0, 3.0)))
        .as("mean 3 + 3 x population standard deviation")
        .isCloseTo(3 + 3 * Math.sqrt(2.4), org.assertj.core.data.Offset.offset(1e-9));

    String rule = "  orders:\n    reconcile: {rules: {freshness: {dynamic: %s}}}\n";
    assertThatThrownBy(() -> parse(with("  orders:\n", rule.formatted("{last: 1, stddevs: 2}"))))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.freshness.dynamic.last"
                + " '1' must be between 2 and 100");
    assertThatThrownBy(() -> parse(with("  orders:\n", rule.formatted("{last: 5}"))))
        .hasMessage(
            "Cannot load contract orders.yaml: datasets.orders.reconcile.rules.freshness.dynamic"
                + " needs exactly one of stddevs (mean + k standard deviations) and"
                + " percent-of-mean");
    assertThatThrownBy(
            () -> parse(with("  orders:\n", rule.formatted("{last: 5, percent-of-mean: -10}"))))
        .hasMessage(
            "Cannot load contract orders.yaml:"
                + " datasets.orders.reconcile.rules.freshness.dynamic.percent-of-mean '-10.0' must"
                + " be a number of at least 0");
    assertThatThrownBy(() -> parse(with("  orders:\n", rule.formatted("{last: 5, mean: 2}"))))
        .hasMessageStartingWith(
            "Cannot load contract orders.yaml:"
                + " datasets.orders.reconcile.rules.freshness.dynamic.mean is not a key here");
  }

  @Test
  void layoutsOfEveryKind() {
    assertThat(
            parse(with("{kind: dms}", "{kind: hive, column: dt, date-format: yyyyMMdd}"))
                .dataset("orders")
                .raw()
                .layout())
        .isEqualTo(Layout.Dated.hive("dt", "yyyyMMdd"));
    assertThat(
            parse(with("{kind: dms}", "{kind: date-path, pattern: YYYY/MM/DD/HH}"))
                .dataset("orders")
                .raw()
                .layout())
        .isEqualTo(Layout.Dated.datePath("YYYY/MM/DD/HH"));
    assertThat(parse(with("{kind: dms}", "{kind: arrival}")).dataset("orders").raw().layout())
        .isEqualTo(new Layout.Arrival());
  }

  @Test
  void absoluteAndRemoteLocationsStay_relativeOnesFollowTheFile() {
    assertThat(ContractFile.resolve("s3://lake/raw/orders", "/data"))
        .isEqualTo("s3://lake/raw/orders");
    assertThat(ContractFile.resolve("/abs/orders", "/data")).isEqualTo("/abs/orders");
    assertThat(ContractFile.resolve("raw/../raw/orders", "/data")).isEqualTo("/data/raw/orders");
    assertThat(ContractFile.resolve("raw/orders", "s3://lake/contracts"))
        .isEqualTo("s3://lake/contracts/raw/orders");
  }

  @Test
  void anUnknownDatasetNamesTheDeclaredOnes() {
    assertThatThrownBy(() -> parse(ORDERS).dataset("customers"))
        .hasMessage("Cannot use dataset 'customers': contract orders.yaml declares [orders]");
  }

  @Test
  void theShippedContractsLoad(@TempDir Path tmp) throws Exception {
    for (String f : List.of("examples/demo/tidemark.yaml", "examples/orders/tidemark.yaml")) {
      Path copy = tmp.resolve(f.replace('/', '_'));
      Files.copy(ProjectFiles.root().resolve(f), copy);
      ContractFile c = ContractFile.load(copy);
      assertThat(c.catalog()).isPresent();
      assertThat(c.catalog().get().properties().get("warehouse"))
          .isEqualTo(tmp.resolve("warehouse").toString());
      assertThat(c.datasets().keySet())
          .as(f)
          .containsExactlyElementsOf(
              f.contains("demo") ? List.of("customers") : List.of("orders", "order_heads"));
    }
  }
}
