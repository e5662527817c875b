package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.testing.ProjectFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real cfn-lint validates every CloudFormation template (not the raw dashboard body). */
@Tag("cfnlint")
class TestCfnLint {
  record Lint(int exitCode, String output) {}

  static Lint cfnLint(List<Path> files) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("cfn-lint", "--format", "parseable"));
    files.forEach(f -> cmd.add(f.toString()));
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("cfn-lint is not installed: pip install cfn-lint", e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("cfn-lint finished").isTrue();
    return new Lint(p.exitValue(), out);
  }

  private static List<Path> cloudFormationTemplates() {
    return ProjectFiles.templates().stream()
        .filter(p -> !p.getFileName().toString().endsWith("-body.json"))
        .toList();
  }

  @Test
  void everyTemplatePassesCfnLint() throws Exception {
    List<Path> templates = cloudFormationTemplates();
    assertThat(templates).hasSize(2);
    Lint lint = cfnLint(templates);
    assertThat(lint.output()).isEmpty();
    assertThat(lint.exitCode()).isZero();
  }

  /**
   * The stack of a contract with every raw layout (Hive folders by day and by hour, date paths by
   * day and by hour, AWS DMS with and without date folders, arrival order), datasets on two buckets
   * and names that are no lower-case word: CloudFormation's schema accepts every table, trigger,
   * alarm and dashboard it makes, with no warning.
   */
  @Test
  void theStackOfAContractWithEveryLayoutPassesCfnLint(@TempDir Path scratch) throws Exception {
    String contract =
        TestContractStack.CATALOG
            + TestContractStack.dataset(
                "customers", "s3://acme-lake/raw/customers", "{kind: hive, column: ingest_date}")
            + TestContractStack.dataset(
                "clicks",
                "s3://acme-lake/raw/clicks",
                "{kind: hive, column: dt, date-format: yyyyMMddHH}")
            + TestContractStack.dataset(
                "daily", "s3://acme-lake/raw/daily", "{kind: date-path, pattern: YYYY/MM/DD}")
            + TestContractStack.dataset(
                "firehose",
                "s3://acme-firehose/stream",
                "{kind: date-path, pattern: YYYY/MM/DD/HH}")
            + TestContractStack.dataset("orders", "s3://acme-dms/sales/orders", "{kind: dms}")
            + TestContractStack.dataset(
                "sales.orders-v2",
                "s3://acme-dms/sales/orders_v2",
                "{kind: dms, date-folders: YYYY-MM-DD}")
            + TestContractStack.dataset("Events_EU", "s3://acme-lake/events/eu", "{kind: arrival}");
    Path stack = scratch.resolve("stack.json");
    Files.writeString(stack, StackTemplate.template(TestContractStack.contract(contract)));
    Lint lint = cfnLint(List.of(stack));
    assertThat(lint.output()).isEmpty();
    assertThat(lint.exitCode()).isZero();
  }

  @Test
  void cfnLintCatchesABrokenAlarm(@TempDir Path scratch) throws Exception {
    Path alarms = ProjectFiles.root().resolve(TemplateGenerator.ALARMS_TEMPLATE);
    Path broken = scratch.resolve("broken.json");
    Files.writeString(
        broken,
        Files.readString(alarms)
            .replaceFirst("GreaterThanOrEqualToThreshold", "GreaterThanOrEqualsThreshold"));
    Lint lint = cfnLint(List.of(broken));
    assertThat(lint.exitCode()).isNotZero();
    assertThat(lint.output()).contains("GreaterThanOrEqualsThreshold");
  }
}
