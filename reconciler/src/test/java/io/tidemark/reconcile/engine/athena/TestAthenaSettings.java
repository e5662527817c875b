package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TestAthenaSettings {
  private static AthenaSettings with(
      String workgroup, String output, Duration pollInitial, Duration pollMax, int maxInFlight) {
    return new AthenaSettings(
        "eu-west-1",
        Optional.empty(),
        workgroup,
        output,
        "AwsDataCatalog",
        "tidemark",
        Duration.ofMinutes(1),
        pollInitial,
        pollMax,
        maxInFlight,
        2);
  }

  @Test
  void defaults() {
    AthenaSettings s = AthenaSettings.of("eu-west-1", "s3://results/athena/", "tidemark");

    assertThat(s.workgroup()).isEqualTo("primary");
    assertThat(s.catalog()).isEqualTo("AwsDataCatalog");
    assertThat(s.endpointOverride()).isEmpty();
    assertThat(s.queryTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(s.pollInitial()).isEqualTo(Duration.ofMillis(250));
    assertThat(s.pollMax()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.maxInFlight()).isEqualTo(4);
    assertThat(s.maxThrottleRetries()).isEqualTo(5);
    assertThat(s.withEndpointOverride(URI.create("http://127.0.0.1:5000")).endpointOverride())
        .contains(URI.create("http://127.0.0.1:5000"));
  }

  @Test
  void badValuesAreRefusedNamingTheField() {
    Duration ms = Duration.ofMillis(100);
    assertThatThrownBy(() -> with(" ", "s3://r/", ms, ms, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot configure Athena: workgroup ' ' must not be blank");
    assertThatThrownBy(() -> with("primary", "/tmp/results", ms, ms, 1))
        .hasMessage(
            "Cannot configure Athena: outputLocation '/tmp/results' must be an s3://bucket/prefix"
                + " URI");
    assertThatThrownBy(() -> with("primary", "s3://r/", Duration.ZERO, ms, 1))
        .hasMessage("Cannot configure Athena: pollInitial 'PT0S' must be a positive duration");
    assertThatThrownBy(() -> with("primary", "s3://r/", Duration.ofSeconds(2), ms, 1))
        .hasMessage(
            "Cannot configure Athena: pollMax 'PT0.1S' must not be shorter than pollInitial (PT2S)");
    assertThatThrownBy(() -> with("primary", "s3://r/", ms, ms, 0))
        .hasMessage("Cannot configure Athena: maxInFlight '0' must be at least 1");
    assertThatThrownBy(
            () ->
                AthenaSettings.of("eu-west-1", "s3://r/", "db")
                    .withEndpointOverride(URI.create("localhost")))
        .hasMessage(
            "Cannot configure Athena: endpointOverride 'localhost' must be an absolute URI such as"
                + " http://host:port");
  }
}
