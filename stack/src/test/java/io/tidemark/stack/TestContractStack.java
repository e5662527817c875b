package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.model.alarms.AlarmDefinition;
import io.tidemark.model.alarms.AlarmTemplateReader;
import io.tidemark.model.config.RuleKind;
import io.tidemark.model.contract.ContractException;
import io.tidemark.model.contract.ContractFile;
import io.tidemark.model.metrics.Dimension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment stack generated from a contract file: every declared dataset gets its raw table,
 * its triggers, its alarms and its dashboard; the job and the reconciler get the contract instead
 * of per-dataset settings; a contract that cannot be deployed on AWS is refused, naming the dataset
 * and the key.
 */
class TestContractStack {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static final String CATALOG =
      """
      version: 1
      catalog:
        warehouse: s3://acme-lake/warehouse
        properties: {type: glue}
      datasets:
      """;

  /** A dataset of that name and layout, its other keys as small as a contract allows. */
  static String dataset(String name, String location, String layout) {
    return """
          %s:
            pipeline: sales
            raw:
              location: %s
              layout: %s
            columns:
              id: string
              amount: decimal(12,2)
              seq: long
            key-columns: [id]
            compared-columns: [amount]
            change-marker: {column: seq, type: sequence}
            curated: {table: curated.%s}
        """
        .formatted(name, location, layout, name.replaceAll("[^A-Za-z0-9_]", "_"));
  }

  static ContractFile contract(String text) {
    return ContractFile.parse("/contracts/tidemark.yaml", text, "/contracts");
  }

  static JsonNode stack(String contractText) throws Exception {
    return MAPPER.readTree(StackTemplate.template(contract(contractText)));
  }

  private static Map<String, String> columns(JsonNode table) {
    Map<String, String> out = new LinkedHashMap<>();
    table
        .path("Properties")
        .path("TableInput")
        .path("StorageDescriptor")
        .path("Columns")
        .forEach(c -> out.put(c.path("Name").asText(), c.path("Type").asText()));
    return out;
  }

  private static List<String> partitionKeys(JsonNode table) {
    List<String> out = new ArrayList<>();
    table
        .path("Properties")
        .path("TableInput")
        .path("PartitionKeys")
        .forEach(k -> out.add(k.path("Name").asText()));
    return out;
  }

  private static JsonNode parameters(JsonNode table) {
    return table.path("Properties").path("TableInput").path("Parameters");
  }

  // ---------------------------------------------------------------- raw tables

  @Test
  void eachDatasetOfTheExampleGetsARawTableWithItsColumnsTypesAndLayout() throws Exception {
    JsonNode r =
        MAPPER
            .readTree(
                StackTemplate.template(
                    ContractFile.load(
                        io.tidemark.model.testing.ProjectFiles.root()
                            .resolve(StackTemplate.EXAMPLE_CONTRACT))))
            .path("Resources");

    JsonNode customers = r.path("CustomersRawTable");
    assertThat(customers.path("Type").asText()).isEqualTo("AWS::Glue::Table");
    assertThat(customers.path("Properties").path("TableInput").path("Name").asText())
        .isEqualTo("customers_raw");
    assertThat(columns(customers))
        .containsExactly(
            Map.entry("customer_id", "string"),
            Map.entry("customer_name", "string"),
            Map.entry("email", "string"),
            Map.entry("updated_at", "timestamp"),
            Map.entry("op", "string"));
    assertThat(partitionKeys(customers)).containsExactly("ingest_date");
    JsonNode p = parameters(customers);
    assertThat(p.path("projection.ingest_date.type").asText()).isEqualTo("date");
    assertThat(p.path("projection.ingest_date.format").asText()).isEqualTo("yyyy-MM-dd");
    assertThat(p.path("projection.ingest_date.range").path("Fn::Sub").asText())
        .isEqualTo("${ProjectionStart},NOW+1DAYS");
    assertThat(p.path("storage.location.template").asText())
        .isEqualTo("s3://acme-lake/raw/customers/ingest_date=${ingest_date}/");
    assertThat(
            customers
                .path("Properties")
                .path("TableInput")
                .path("StorageDescriptor")
                .path("Location")
                .asText())
        .isEqualTo("s3://acme-lake/raw/customers/");

    // DMS without date folders: one folder, no partitions; Athena filters by "$path".
    JsonNode orders = r.path("OrdersRawTable");
    assertThat(orders.path("Properties").path("TableInput").path("Name").asText())
        .isEqualTo("orders_raw");
    assertThat(columns(orders))
        .containsExactly(
            Map.entry("op", "string"),
            Map.entry("order_id", "string"),
            Map.entry("line_nr", "int"),
            Map.entry("amount", "decimal(12,2)"),
            Map.entry("order_date", "date"),
            Map.entry("paid", "boolean"),
            Map.entry("change_seq", "bigint"));
    assertThat(partitionKeys(orders)).isEmpty();
    assertThat(parameters(orders).has("projection.enabled")).isFalse();
    assertThat(
            orders
                .path("Properties")
                .path("TableInput")
                .path("StorageDescriptor")
                .path("Location")
                .asText())
        .isEqualTo("s3://acme-dms/exports/sales/orders/");
  }

  @Test
  void aDatePathIsOneProjectedDateKeyAndAnHourFolderASecondKey() throws Exception {
    JsonNode r =
        stack(
                CATALOG
                    + dataset(
                        "daily", "s3://lake/raw/daily", "{kind: date-path, pattern: YYYY/MM/DD}")
                    + dataset(
                        "firehose",
                        "s3://lake/firehose/",
                        "{kind: date-path, pattern: YYYY/MM/DD/HH}")
                    + dataset(
                        "compact",
                        "s3://lake/compact",
                        "{kind: date-path, pattern: dt=YYYYMMDDHH}"))
            .path("Resources");

    JsonNode daily = parameters(r.path("DailyRawTable"));
    assertThat(partitionKeys(r.path("DailyRawTable"))).containsExactly("folder_date");
    assertThat(daily.path("projection.folder_date.format").asText()).isEqualTo("yyyy/MM/dd");
    assertThat(daily.path("projection.folder_date.interval.unit").asText()).isEqualTo("DAYS");
    assertThat(daily.path("storage.location.template").asText())
        .isEqualTo("s3://lake/raw/daily/${folder_date}/");
    // The start parameter, YYYY-MM-DD, rewritten into the folders' format.
    assertThat(daily.path("projection.folder_date.range").toString())
        .isEqualTo(
            "{\"Fn::Join\":[\"\",["
                + "{\"Fn::Select\":[0,{\"Fn::Split\":[\"-\",{\"Ref\":\"ProjectionStart\"}]}]},\"/\","
                + "{\"Fn::Select\":[1,{\"Fn::Split\":[\"-\",{\"Ref\":\"ProjectionStart\"}]}]},\"/\","
                + "{\"Fn::Select\":[2,{\"Fn::Split\":[\"-\",{\"Ref\":\"ProjectionStart\"}]}]},"
                + "\",NOW+1DAYS\"]]}");

    // Kinesis Data Firehose's hour folders: the day a date, the hour an integer 00..23.
    JsonNode firehose = parameters(r.path("FirehoseRawTable"));
    assertThat(partitionKeys(r.path("FirehoseRawTable")))
        .containsExactly("folder_date", "folder_hour");
    assertThat(firehose.path("projection.folder_date.format").asText()).isEqualTo("yyyy/MM/dd");
    assertThat(firehose.path("projection.folder_hour.type").asText()).isEqualTo("integer");
    assertThat(firehose.path("projection.folder_hour.range").asText()).isEqualTo("0,23");
    assertThat(firehose.path("projection.folder_hour.digits").asText()).isEqualTo("2");
    assertThat(firehose.path("storage.location.template").asText())
        .isEqualTo("s3://lake/firehose/${folder_date}/${folder_hour}/");

    // An hour in the day's folder is part of the one date key, stepped by the hour.
    JsonNode compact = parameters(r.path("CompactRawTable"));
    assertThat(partitionKeys(r.path("CompactRawTable"))).containsExactly("folder_date");
    assertThat(compact.path("projection.folder_date.format").asText()).isEqualTo("yyyyMMddHH");
    assertThat(compact.path("projection.folder_date.interval.unit").asText()).isEqualTo("HOURS");
    assertThat(compact.path("storage.location.template").asText())
        .isEqualTo("s3://lake/compact/dt=${folder_date}/");
    assertThat(compact.path("projection.folder_date.range").toString())
        .endsWith(
            "{\"Fn::Select\":[2,{\"Fn::Split\":[\"-\",{\"Ref\":\"ProjectionStart\"}]}]},"
                + "\"00,NOW+1DAYS\"]]}");
  }

  @Test
  void aHiveColumnWithAnotherDateFormatKeepsItsNameAndFormat() throws Exception {
    JsonNode r =
        stack(
                CATALOG
                    + dataset(
                        "hourly",
                        "s3://lake/raw/hourly",
                        "{kind: hive, column: dt, date-format: yyyy-MM-dd-HH}"))
            .path("Resources");
    JsonNode p = parameters(r.path("HourlyRawTable"));
    assertThat(partitionKeys(r.path("HourlyRawTable"))).containsExactly("dt");
    assertThat(p.path("projection.dt.format").asText()).isEqualTo("yyyy-MM-dd-HH");
    assertThat(p.path("projection.dt.interval.unit").asText()).isEqualTo("HOURS");
    assertThat(p.path("storage.location.template").asText())
        .isEqualTo("s3://lake/raw/hourly/dt=${dt}/");
  }

  @Test
  void dmsWithDateFoldersProjectsTheCdcFoldersAndReadsTheFullLoadThroughASecondTable()
      throws Exception {
    JsonNode r =
        stack(
                CATALOG
                    + dataset(
                        "orders", "s3://dms/sales/orders", "{kind: dms, date-folders: YYYY/MM/DD}")
                    + dataset("events", "s3://lake/events", "{kind: arrival}"))
            .path("Resources");
    JsonNode cdc = r.path("OrdersRawTable");
    assertThat(cdc.path("Properties").path("TableInput").path("Name").asText())
        .isEqualTo("orders_raw");
    assertThat(partitionKeys(cdc)).containsExactly("folder_date");
    assertThat(parameters(cdc).path("storage.location.template").asText())
        .isEqualTo("s3://dms/sales/orders/${folder_date}/");
    // The full-load files lie in the table's folder, where no projected partition reaches.
    JsonNode all = r.path("OrdersRawTableAll");
    assertThat(all.path("Properties").path("TableInput").path("Name").asText())
        .isEqualTo("orders_raw_all");
    assertThat(partitionKeys(all)).isEmpty();
    assertThat(
            all.path("Properties")
                .path("TableInput")
                .path("StorageDescriptor")
                .path("Location")
                .asText())
        .isEqualTo("s3://dms/sales/orders/");
    assertThat(all.path("Properties").path("TableInput").path("Description").asText())
        .contains("full load", "read recursively", "$path");
    assertThat(columns(all)).isEqualTo(columns(cdc));

    JsonNode events = r.path("EventsRawTable");
    assertThat(partitionKeys(events)).isEmpty();
    assertThat(parameters(events).has("storage.location.template")).isFalse();
  }

  // ---------------------------------------------------------------- what cannot be deployed

  @Test
  void aRawLocationOutsideS3IsRefusedNamingTheDatasetAndKey() {
    String text =
        CATALOG
            + dataset("customers", "s3://lake/raw/customers", "{kind: arrival}")
            + dataset("orders", "raw/orders", "{kind: dms}");
    assertThatThrownBy(() -> StackTemplate.template(contract(text)))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: datasets.orders.raw.location"
                + " '/contracts/raw/orders' is not an s3:// location; an AWS stack reads raw files"
                + " and writes tables in S3 only");
    assertThatThrownBy(
            () ->
                StackTemplate.template(
                    contract(CATALOG + dataset("orders", "s3://lake", "{kind: dms}"))))
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: datasets.orders.raw.location"
                + " 's3://lake' names no folder, or an empty path segment (s3://bucket/folder, one"
                + " slash between folders)");
  }

  @Test
  void aContractWithoutAGlueCatalogOnS3IsRefused() {
    String body = dataset("orders", "s3://lake/orders", "{kind: dms}");
    assertThatThrownBy(() -> StackTemplate.template(contract("version: 1\ndatasets:\n" + body)))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: it declares no catalog; add"
                + " catalog: {warehouse: s3://<bucket>/<folder>, properties: {type: glue}}: on AWS"
                + " the curated tables live in the Glue Data Catalog");
    assertThatThrownBy(
            () ->
                StackTemplate.template(
                    contract(
                        "version: 1\ncatalog: {warehouse: s3://lake/warehouse}\ndatasets:\n"
                            + body)))
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: catalog.properties"
                + " [catalog-impl=org.apache.iceberg.jdbc.JdbcCatalog] is not AWS Glue; set"
                + " catalog.properties: {type: glue}");
    assertThatThrownBy(
            () ->
                StackTemplate.template(
                    contract(
                        "version: 1\ncatalog: {warehouse: warehouse, properties: {type: glue}}\n"
                            + "datasets:\n"
                            + body)))
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: catalog.warehouse"
                + " '/contracts/warehouse' is not an s3:// location; an AWS stack reads raw files"
                + " and writes tables in S3 only");
  }

  @Test
  void aColumnNamedLikeItsTablesPartitionKeyIsRefused() {
    String text =
        CATALOG
            + dataset("orders", "s3://lake/orders", "{kind: date-path, pattern: YYYY/MM/DD}")
                .replace("      seq: long\n", "      seq: long\n      folder_date: date\n");
    assertThatThrownBy(() -> StackTemplate.template(contract(text)))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: datasets.orders.columns"
                + ".folder_date has the name of its raw table's partition key (from"
                + " datasets.orders.raw.layout); Athena's table cannot hold both: rename the"
                + " column or the folders' column");
  }

  @Test
  void datasetsWhoseNamesWouldMeetInTheStackAreRefused() {
    String text =
        CATALOG
            + dataset("sales.orders", "s3://lake/a", "{kind: arrival}")
            + dataset("sales_orders", "s3://lake/b", "{kind: arrival}");
    assertThatThrownBy(() -> StackTemplate.template(contract(text)))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: datasets 'sales.orders' and"
                + " 'sales_orders' would share the raw table sales_orders_raw; rename one");
  }

  /**
   * A rule under an id of its own (here a custom query and a reference) has an alarm of its own,
   * watching that id, in the dataset's composite alarm: no kind's alarm watches it.
   */
  @Test
  void aRuleUnderAnIdOfItsOwnGetsItsOwnAlarmInTheComposite() throws Exception {
    String orders =
        dataset("orders", "s3://lake/orders", "{kind: arrival}")
            + """
                reconcile:
                  rules:
                    negative_amounts: {kind: custom_sql, sql: SELECT key FROM curated WHERE amount < 0}
                    customer_known: {kind: referential_integrity, columns: [id], references: ids}
            """;
    JsonNode r =
        stack(CATALOG + orders + dataset("ids", "s3://lake/ids", "{kind: arrival}"))
            .path("Resources");
    for (String rule : List.of("negative_amounts", "customer_known")) {
      String id = "Orders" + io.tidemark.model.alarms.RuleAlarm.logicalId(rule);
      JsonNode alarm = r.path(id);
      assertThat(alarm.path("Type").asText()).as(id).isEqualTo("AWS::CloudWatch::Alarm");
      assertThat(alarm.path("Properties").path("MetricName").asText()).isEqualTo("RuleAlerting");
      assertThat(alarm.path("Properties").path("Dimensions").findValuesAsText("Value"))
          .contains(rule);
      assertThat(alarm.path("Properties").path("AlarmName").asText())
          .isEqualTo("tidemark-sales-orders-rule-" + rule.replace('_', '-') + "-failing");
      assertThat(
              r.path("Orders" + TemplateGenerator.DATASET_ALARM)
                  .path("Properties")
                  .path("AlarmRule")
                  .toString())
          .as("the composite")
          .contains("ALARM(\\\"${" + id + "}\\\")");
    }
    assertThat(r.has("IdsRuleNegativeAmountsFailing")).as("only the dataset that has it").isFalse();
  }

  @Test
  void aContractWithMoreDatasetsThanOneStackHoldsIsRefused() throws Exception {
    StringBuilder many = new StringBuilder(CATALOG);
    for (int i = 1; i <= 13; i++) {
      // Names long enough that listing them would pass a description's 1024 characters.
      many.append(
          dataset(
              "orders_exported_nightly_from_the_erp_system_of_the_sales_team_number_" + i,
              "s3://lake/raw/d" + i,
              "{kind: arrival}"));
    }
    JsonNode thirteen = stack(many.toString());
    // 14 shared resources, and per dataset one alarm per rule and 15 more, their composite, a
    // dashboard, a raw table and two triggers.
    int perDataset = RuleKind.values().length + 15 + 1 + 4;
    assertThat(thirteen.path("Resources").size()).isEqualTo(14 + 13 * perDataset);
    assertThat(thirteen.path("Description").asText())
        .startsWith("Tidemark on AWS for the datasets of contract tidemark.yaml (13 datasets):");

    // One more passes CloudFormation's 1 MB template.
    many.append(dataset("one_more", "s3://lake/raw/d14", "{kind: arrival}"));
    assertThatThrownBy(() -> StackTemplate.template(contract(many.toString())))
        .isInstanceOf(ContractException.class)
        .hasMessageStartingWith(
            "Cannot generate an AWS stack from contract tidemark.yaml: its 14 datasets need a"
                + " template of ")
        .hasMessageEndingWith(
            " bytes, more than the 1000000 CloudFormation reads from S3; split the datasets over"
                + " several contract files, one stack (and one reconciler) each");

    many.append(dataset("two_more", "s3://lake/raw/d15", "{kind: arrival}"));
    many.append(dataset("three_more", "s3://lake/raw/d16", "{kind: arrival}"));
    assertThatThrownBy(() -> StackTemplate.template(contract(many.toString())))
        .isInstanceOf(ContractException.class)
        .hasMessage(
            "Cannot generate an AWS stack from contract tidemark.yaml: its 16 datasets need "
                + (14 + 16 * perDataset)
                + " resources, more than the 500 CloudFormation allows in a stack; split the"
                + " datasets over several contract files, one stack (and one reconciler) each");
  }

  // ---------------------------------------------------------------- names beyond one word

  @Test
  void aDatasetNameThatIsNoLowerCaseWordGetsSafeIdsAndNamesAndKeepsItsDimension() throws Exception {
    JsonNode t =
        stack(
            CATALOG
                + dataset("sales.orders-v2", "s3://lake/orders", "{kind: arrival}")
                + dataset("Customers_EU", "s3://lake/customers", "{kind: arrival}"));
    JsonNode r = t.path("Resources");
    assertThat(r.has("SalesOrdersV2RuleCountMatchFailing")).isTrue();
    assertThat(r.has("CustomersEURuleCountMatchFailing")).isTrue();
    assertThat(r.path("SalesOrdersV2RawTable").path("Properties").path("TableInput").path("Name"))
        .hasToString("\"sales_orders_v2_raw\"");
    assertThat(r.path("CustomersEURawTable").path("Properties").path("TableInput").path("Name"))
        .hasToString("\"customers_eu_raw\"");
    assertThat(r.path("SalesOrdersV2Dashboard").path("Properties").path("DashboardName").asText())
        .isEqualTo("tidemark-sales-sales_orders-v2");
    JsonNode action =
        r.path("SalesOrdersV2IngestTrigger").path("Properties").path("Actions").get(0);
    assertThat(action.path("Arguments").path("--dataset").asText()).isEqualTo("sales.orders-v2");

    List<AlarmDefinition> alarms = AlarmTemplateReader.read(t, Map.of());
    assertThat(alarms)
        .filteredOn(a -> a.logicalId().startsWith("SalesOrdersV2"))
        .hasSize(RuleKind.values().length + 15)
        .allSatisfy(
            a -> {
              assertThat(a.dimensions())
                  .containsEntry(Dimension.DATASET, "sales.orders-v2")
                  .containsEntry(Dimension.PIPELINE, "sales");
              assertThat(a.alarmName()).startsWith("tidemark-sales-sales.orders-v2-");
            });
    assertThat(CatalogueConformance.problems(t)).isEmpty();
    // No environment variable names a dataset: the contract names them all.
    JsonNode env =
        r.path("ReconcilerTaskDefinition")
            .path("Properties")
            .path("ContainerDefinitions")
            .get(0)
            .path("Environment");
    env.forEach(e -> assertThat(e.path("Name").asText()).doesNotContain("DATASETS"));
  }

  // ---------------------------------------------------------------- the job and the reconciler

  @Test
  void theJobAndTheReconcilerGetTheContractAndNoDatasetSettings() throws Exception {
    JsonNode r =
        stack(
                CATALOG
                    + dataset("orders", "s3://dms/sales/orders", "{kind: dms}")
                    + dataset("customers", "s3://lake/raw/customers", "{kind: arrival}"))
            .path("Resources");
    JsonNode args = r.path("IngestJob").path("Properties").path("DefaultArguments");
    List<String> names = new ArrayList<>();
    args.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactly(
            "--job-language",
            "--class",
            "--datalake-formats",
            "--extra-jars",
            "--contract",
            "--state-root",
            "--cloudwatch",
            "--cloudwatch-namespace",
            "--cloudwatch-region",
            "--events",
            "--events-region",
            "--deployment",
            "--verified-publish",
            "--reconciler-api-key-file");
    assertThat(args.path("--deployment").path("Ref").asText()).isEqualTo("DeploymentName");
    // Verified publish only when the deployment names its reconciler: else no argument at all.
    assertThat(args.path("--verified-publish").toString())
        .isEqualTo(
            "{\"Fn::If\":[\"VerifiedPublish\",{\"Ref\":\"ReconcilerUrl\"},{\"Ref\":\"AWS::NoValue\"}]}");
    assertThat(args.path("--contract").path("Fn::Sub").asText())
        .isEqualTo("s3://${ArtifactBucketName}/${ContractKey}");
    // One run per dataset at a time; a dataset's own runs are kept apart by its lease.
    assertThat(
            r.path("IngestJob")
                .path("Properties")
                .path("ExecutionProperty")
                .path("MaxConcurrentRuns")
                .asInt())
        .isEqualTo(2);
    for (String d : List.of("Orders", "Customers")) {
      JsonNode nightly = r.path(d + "IngestTrigger").path("Properties");
      assertThat(nightly.path("Schedule").path("Ref").asText()).isEqualTo("IngestSchedule");
      assertThat(nightly.path("Actions").get(0).path("Arguments").toString())
          .isEqualTo("{\"--dataset\":\"" + d.toLowerCase() + "\"}");
      JsonNode sweep = r.path(d + "SweepTrigger").path("Properties");
      assertThat(sweep.path("Schedule").path("Ref").asText()).isEqualTo("SweepSchedule");
      assertThat(sweep.path("Actions").get(0).path("Arguments").toString())
          .isEqualTo("{\"--dataset\":\"" + d.toLowerCase() + "\",\"--mode\":\"sweep\"}");
    }

    Map<String, String> env = new LinkedHashMap<>();
    r.path("ReconcilerTaskDefinition")
        .path("Properties")
        .path("ContainerDefinitions")
        .get(0)
        .path("Environment")
        .forEach(e -> env.put(e.path("Name").asText(), e.path("Value").toString()));
    assertThat(env.keySet())
        .containsExactly(
            "TIDEMARK_CONTRACT",
            "TIDEMARK_STATE_ROOT",
            "TIDEMARK_ENGINE",
            "TIDEMARK_ATHENA_REGION",
            "TIDEMARK_ATHENA_WORKGROUP",
            "TIDEMARK_ATHENA_OUTPUT_LOCATION",
            "TIDEMARK_ATHENA_DATABASE",
            "QUARKUS_HTTP_HOST",
            "TIDEMARK_API_ALLOWED_HOSTS",
            "TIDEMARK_CLOUDWATCH_ENABLED",
            "TIDEMARK_CLOUDWATCH_REGION",
            "TIDEMARK_EVENTS_ENABLED",
            "TIDEMARK_EVENTS_REGION",
            "TIDEMARK_EVENTS_DEPLOYMENT");
    assertThat(env.get("TIDEMARK_CONTRACT"))
        .isEqualTo("{\"Fn::Sub\":\"s3://${ArtifactBucketName}/${ContractKey}\"}");
  }

  /** Every statement of a role's policy, by Sid. */
  private static Map<String, JsonNode> statements(JsonNode resources, String role) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    resources
        .path(role)
        .path("Properties")
        .path("Policies")
        .get(0)
        .path("PolicyDocument")
        .path("Statement")
        .forEach(s -> out.put(s.path("Sid").asText(), s));
    return out;
  }

  private static List<String> resources(JsonNode statement) {
    List<String> out = new ArrayList<>();
    statement
        .path("Resource")
        .forEach(r -> out.add(r.isTextual() ? r.asText() : r.path("Fn::Sub").asText()));
    return out;
  }

  @Test
  void theRolesReachEveryDatasetsRawFolderAndTheCatalogsWarehouseAndTablesOnly() throws Exception {
    JsonNode r =
        stack(
                CATALOG
                    + dataset("orders", "s3://dms/sales/orders", "{kind: dms}")
                    + dataset("customers", "s3://acme-lake/raw/customers", "{kind: arrival}")
                    + dataset("refunds", "s3://dms/sales/refunds", "{kind: dms}"))
            .path("Resources");
    Map<String, JsonNode> ingest = statements(r, "IngestJobRole");
    assertThat(resources(ingest.get("ReadRaw")))
        .containsExactly(
            "arn:${AWS::Partition}:s3:::dms/sales/orders/*",
            "arn:${AWS::Partition}:s3:::acme-lake/raw/customers/*",
            "arn:${AWS::Partition}:s3:::dms/sales/refunds/*");
    assertThat(ingest.get("ReadRaw").path("Action").toString()).isEqualTo("[\"s3:GetObject\"]");
    // One listing statement per raw bucket, limited to the datasets' folders there.
    assertThat(resources(ingest.get("ListRaw1"))).containsExactly("arn:${AWS::Partition}:s3:::dms");
    assertThat(ingest.get("ListRaw1").path("Condition").toString())
        .isEqualTo(
            "{\"StringLike\":{\"s3:prefix\":[\"sales/orders/*\",\"sales/refunds/*\","
                + "\"sales/orders\",\"sales/refunds\"]}}");
    assertThat(resources(ingest.get("ListRaw2")))
        .containsExactly("arn:${AWS::Partition}:s3:::acme-lake");
    assertThat(resources(ingest.get("ReadWriteWarehouseAndState")))
        .containsExactly(
            "arn:${AWS::Partition}:s3:::acme-lake/warehouse/*",
            "arn:${AWS::Partition}:s3:::${LakeBucketName}/${StatePrefix}/*");
    assertThat(resources(ingest.get("CuratedTablesInGlue")))
        .containsExactly(
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:catalog",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:database/curated",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/orders",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/orders_quarantine",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/orders_tombstones",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers_quarantine",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers_tombstones",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/refunds",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/refunds_quarantine",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/refunds_tombstones");
    assertThat(resources(ingest.get("ReadJobArtifactsAndContract")))
        .contains("arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${ContractKey}");

    assertThat(resources(ingest.get("PutIngestRunEvents")))
        .containsExactly(
            "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default");
    Map<String, JsonNode> reconciler = statements(r, "ReconcilerTaskRole");
    assertThat(resources(reconciler.get("ReadRawWarehouseRunReportsAndContract")))
        .containsExactly(
            "arn:${AWS::Partition}:s3:::dms/sales/orders/*",
            "arn:${AWS::Partition}:s3:::acme-lake/raw/customers/*",
            "arn:${AWS::Partition}:s3:::dms/sales/refunds/*",
            "arn:${AWS::Partition}:s3:::acme-lake/warehouse/*",
            "arn:${AWS::Partition}:s3:::${LakeBucketName}/${StatePrefix}/_runs/*",
            "arn:${AWS::Partition}:s3:::${ArtifactBucketName}/${ContractKey}");
    assertThat(resources(reconciler.get("GlueReadTables")))
        .contains(
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/${GlueDatabase}/orders_raw",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/${GlueDatabase}/refunds_raw",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers_quarantine")
        .noneMatch(a -> a.endsWith("_tombstones"));
    assertThat(resources(reconciler.get("PutReconciliationEvents")))
        .containsExactly(
            "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default");
    JsonNode rule = r.path("FailedReconciliationsRule");
    assertThat(rule.path("Type").asText()).isEqualTo("AWS::Events::Rule");
    assertThat(rule.path("Condition").asText()).isEqualTo("HasTopic");
    assertThat(rule.path("Properties").path("EventPattern").toString())
        .isEqualTo(
            "{\"source\":[\"tidemark\"],\"detail-type\":[\"Tidemark Reconciliation Finished\"],"
                + "\"detail\":{\"deployment\":[{\"Ref\":\"DeploymentName\"}],"
                + "\"status\":[\"FAILED\",\"ERROR\"],"
                + "\"dataset\":[\"orders\",\"customers\",\"refunds\"]}}");
    assertThat(rule.path("Properties").path("Targets").get(0).path("Arn").toString())
        .isEqualTo("{\"Ref\":\"AlarmTopicArn\"}");
    // Passing FULL runs move the verified tag: the curated tables and their metadata only.
    assertThat(resources(reconciler.get("MoveVerifiedTags")))
        .containsExactly(
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:catalog",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:database/curated",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/orders",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/customers",
            "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:table/curated/refunds");
    assertThat(resources(reconciler.get("WriteTagMetadata")))
        .containsExactly(
            "arn:${AWS::Partition}:s3:::acme-lake/warehouse/curated.db/orders/metadata/*.metadata.json",
            "arn:${AWS::Partition}:s3:::acme-lake/warehouse/curated.db/customers/metadata/*.metadata.json",
            "arn:${AWS::Partition}:s3:::acme-lake/warehouse/curated.db/refunds/metadata/*.metadata.json");
    assertThat(resources(reconciler.get("BucketLocations")))
        .containsExactly(
            "arn:${AWS::Partition}:s3:::${LakeBucketName}",
            "arn:${AWS::Partition}:s3:::dms",
            "arn:${AWS::Partition}:s3:::acme-lake");
  }

  @Test
  void theStackCreatesTheCuratedDatabasesAndKeepsThemWhenItGoes() throws Exception {
    JsonNode t =
        stack(
            CATALOG
                + dataset("orders", "s3://dms/orders", "{kind: dms}")
                    .replace("curated.orders", "sales.orders"));
    JsonNode db = t.path("Resources").path("CuratedDatabaseSales");
    assertThat(db.path("Type").asText()).isEqualTo("AWS::Glue::Database");
    assertThat(db.path("DeletionPolicy").asText()).isEqualTo("Retain");
    assertThat(db.path("Properties").path("DatabaseInput").path("Name").asText())
        .isEqualTo("sales");
    assertThat(t.path("Rules").toString())
        .contains("{\"Fn::Contains\":[[\"sales\"],{\"Ref\":\"GlueDatabaseName\"}]}");
  }

  // ---------------------------------------------------------------- the generator's command line

  @Test
  void theGeneratorWritesTheStackOfAContractFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tidemark.yaml");
    Files.writeString(file, CATALOG + dataset("orders", "s3://dms/orders", "{kind: dms}"));
    Path out = dir.resolve("out/stack.json");

    TemplateGenerator.main(new String[] {"--contract", file.toString(), "--out", out.toString()});
    assertThat(Files.readString(out)).isEqualTo(StackTemplate.template(ContractFile.load(file)));

    TemplateGenerator.main(new String[] {"--contract", file.toString()});
    assertThat(dir.resolve(TemplateGenerator.STACK_FILE)).exists();

    assertThatThrownBy(
            () -> TemplateGenerator.main(new String[] {"--contract", file.toString(), "--ot", "x"}))
        .hasMessage(
            "Cannot run TemplateGenerator: unknown option '--ot' (known: [--contract, --out])");
  }
}
