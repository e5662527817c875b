package io.tidemark.model.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Which backend runs a suite, and the reason a skipped run gives. Docker's presence is this
 * machine's, so the tests that depend on it compare with what Testcontainers answers.
 */
@Tag("aws")
class TestAwsBackends {
  private final String before = System.getProperty(AwsBackend.PROPERTY);

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(AwsBackend.PROPERTY);
    } else {
      System.setProperty(AwsBackend.PROPERTY, before);
    }
  }

  @Test
  void motoServesEverySuiteAndIsNeverSkippedByDefault() {
    System.clearProperty(AwsBackend.PROPERTY);
    assertThat(AwsBackend.MOTO.skipReason(EnumSet.allOf(AwsService.class))).isEmpty();
  }

  @Test
  void localStackSaysWhichServiceItLacks() {
    System.clearProperty(AwsBackend.PROPERTY);
    assertThat(AwsBackend.LOCALSTACK.skipReason(List.of(AwsService.MOTO_API, AwsService.S3)))
        .contains(
            "LocalStack backend skipped: this suite needs moto's control API (queued Athena"
                + " result sets, manual query state transitions), which only moto has");
    assertThat(AwsBackend.LOCALSTACK.lacks(AwsService.S3)).isEmpty();
    assertThat(AwsBackend.LOCALSTACK.lacks(AwsService.CLOUDWATCH)).isEmpty();
  }

  @Test
  void withoutDockerLocalStackIsSkippedSayingSoAndWithDockerItRuns() {
    System.clearProperty(AwsBackend.PROPERTY);
    boolean docker = AwsBackend.Docker.available();
    assertThat(AwsBackend.LOCALSTACK.skipReason(List.of(AwsService.S3)))
        .isEqualTo(
            docker
                ? java.util.Optional.empty()
                : java.util.Optional.of(
                    "LocalStack backend skipped: no Docker engine (Testcontainers found none)"));
  }

  @Test
  void aSelectedBackendIsRequiredAndAnUnselectedOneSkipped() {
    System.setProperty(AwsBackend.PROPERTY, "localstack");
    assertThat(AwsBackend.LOCALSTACK.skipReason(List.of(AwsService.S3))).isEmpty();
    assertThat(AwsBackend.MOTO.skipReason(List.of(AwsService.S3)))
        .contains("moto backend skipped: not selected by -Dtidemark.aws.backends=localstack");

    System.setProperty(AwsBackend.PROPERTY, " Moto , LOCALSTACK ");
    assertThat(AwsBackend.selected()).contains(EnumSet.allOf(AwsBackend.class));

    System.setProperty(AwsBackend.PROPERTY, "moto,floci");
    assertThatThrownBy(AwsBackend::selected)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("-Dtidemark.aws.backends names 'floci'; the AWS backends are moto,localstack");
  }

  @Test
  void aRequiredLocalStackWithoutDockerFailsSayingWhy() {
    assumeFalse(
        AwsBackend.Docker.available(),
        "a Docker engine is present: a required LocalStack starts, as the @AwsSuite classes show");
    System.setProperty(AwsBackend.PROPERTY, "moto,localstack");
    assertThatThrownBy(AwsBackend.LOCALSTACK::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "LocalStack backend was selected by -Dtidemark.aws.backends but cannot run:"
                + " no Docker engine (Testcontainers found none)");
  }
}
