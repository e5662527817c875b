package io.tidemark.reconcile.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.config.RuleKind;
import io.tidemark.model.config.RuleSpec;
import io.tidemark.model.report.IngestRunReport;
import io.tidemark.model.report.RuleResult;
import io.tidemark.model.report.RuleStatus;
import io.tidemark.model.testing.Reports;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Columns the job's runs found undeclared fail schema_drift, naming the column and the run. */
class TestSchemaDrift {
  private static final Instant T0 = Instant.parse("2026-12-01T02:00:00Z");

  private static IngestRunReport run(String id, Instant start, List<String> undeclared) {
    return Reports.succeeded(start).toBuilder().runId(id).undeclaredColumns(undeclared).build();
  }

  private static RuleResult evaluate(SchemaDrift.Outcome drift) {
    return RuleEvaluator.evaluate(
        RuleSpec.of(RuleKind.SCHEMA_DRIFT),
        new RuleEvaluator.Inputs(
            null, "engine down", null, null, null, null, null, List.of(), drift, null, null, null));
  }

  @Test
  void aWindowFailsOnTheColumnsItsRunsFound() {
    List<IngestRunReport> reports =
        List.of(
            run("r1", T0, List.of("discount (in 2 file(s))")),
            run(
                "r2",
                T0.plusSeconds(3600),
                List.of("discount (in 1 file(s))", "coupon (in 1 file(s))")));
    SchemaDrift.Outcome o = SchemaDrift.check(reports, T0.minusSeconds(1), T0.plusSeconds(7200));
    assertThat(o.distinct()).isEqualTo(2);
    RuleResult r = evaluate(o);
    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.observed()).isEqualTo(2);
    assertThat(r.sampleKeys())
        .containsExactly("coupon (in 1 file(s)) in run r2", "discount (in 2 file(s)) in run r1");
    assertThat(r.reason())
        .startsWith("2 column(s) of raw files are not declared in the dataset's contract");
  }

  @Test
  void fullLooksAtTheLatestRunThatReadFiles_declaringTheColumnClearsIt() {
    IngestRunReport drifted = run("r1", T0, List.of("discount (in 2 file(s))"));
    IngestRunReport declared = run("r2", T0.plusSeconds(3600), List.of());
    assertThat(SchemaDrift.check(List.of(drifted), null, T0.plusSeconds(7200)).distinct())
        .isEqualTo(1);
    assertThat(
            evaluate(SchemaDrift.check(List.of(drifted, declared), null, T0.plusSeconds(7200)))
                .status())
        .isEqualTo(RuleStatus.PASS);
    // A run that read nothing says nothing about raw's columns.
    IngestRunReport idle =
        run("r3", T0.plusSeconds(5400), List.of()).toBuilder().inputFiles(List.of()).build();
    assertThat(SchemaDrift.check(List.of(drifted, idle), null, T0.plusSeconds(7200)).distinct())
        .isEqualTo(1);
  }

  @Test
  void filesTheJobQuarantinedForAMissingOrRetypedColumnFailTheRuleNamingFileAndRun() {
    IngestRunReport renamed =
        run("r1", T0, List.of("e_mail (in 1 file(s))")).toBuilder()
            .quarantinedFiles(
                List.of(
                    "file:/raw/customers/ingest_date=2026-12-01/a.parquet: MISSING_COLUMN (email)",
                    "file:/raw/customers/ingest_date=2026-12-01/b.parquet: INCOMPATIBLE_TYPE"
                        + " (updated_at is string, declared timestamp)",
                    "file:/raw/customers/ingest_date=2026-12-01/c.parquet: UNREADABLE_FILE (not"
                        + " Parquet)"))
            .build();

    SchemaDrift.Outcome o = SchemaDrift.check(List.of(renamed), null, T0.plusSeconds(7200));
    RuleResult r = evaluate(o);

    assertThat(r.status()).isEqualTo(RuleStatus.FAIL);
    assertThat(r.observed()).as("one undeclared column and two files").isEqualTo(3);
    assertThat(r.sampleKeys())
        .containsExactly(
            "e_mail (in 1 file(s)) in run r1",
            "file:/raw/customers/ingest_date=2026-12-01/a.parquet: MISSING_COLUMN (email) in run"
                + " r1",
            "file:/raw/customers/ingest_date=2026-12-01/b.parquet: INCOMPATIBLE_TYPE (updated_at"
                + " is string, declared timestamp) in run r1");
    assertThat(r.reason())
        .contains("1 column(s) of raw files are not declared in the dataset's contract")
        .contains(
            "2 raw file(s) were quarantined whole for a column missing, repeated or of another"
                + " type than the contract declares");
  }

  @Test
  void aRunThatQuarantinedOnlyUnreadableFilesIsNoDrift() {
    IngestRunReport unreadable =
        run("r1", T0, List.of()).toBuilder()
            .quarantinedFiles(List.of("file:/raw/c.parquet: UNREADABLE_FILE (not Parquet)"))
            .build();

    assertThat(evaluate(SchemaDrift.check(List.of(unreadable), null, T0.plusSeconds(60))).status())
        .isEqualTo(RuleStatus.PASS);
  }

  @Test
  void fullCountsEveryRunThatEndedAtTheLatestInstant() {
    IngestRunReport clean = run("r1", T0, List.of());
    IngestRunReport drifted = run("r2", T0, List.of("discount (in 1 file(s))"));

    assertThat(SchemaDrift.check(List.of(clean, drifted), null, T0.plusSeconds(60)).observed())
        .isEqualTo(1);
  }

  @Test
  void withoutRunReportsTheRuleIsAnError() {
    assertThat(evaluate(null).status()).isEqualTo(RuleStatus.ERROR);
  }
}
