package io.tidemark.reconcile.engine.athena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

class TestAthenaParameters {
  @Test
  void stringsAreQuotedLiteralsAndNumbersTheirDigits() {
    assertThat(AthenaQueryRunner.literals("q", List.of("a", "O'Brien", "", 42L, -7, "'; DROP")))
        .containsExactly("'a'", "'O''Brien'", "''", "42", "-7", "'''; DROP'");
  }

  @Test
  void otherValuesAreRefusedNamingTheirPosition() {
    assertThatThrownBy(() -> AthenaQueryRunner.literals("freshness", List.of("a", 1.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot run query freshness: parameter 2 is a Double; Athena parameters must be"
                + " String, Long or Integer");
    assertThatThrownBy(() -> AthenaQueryRunner.literals("freshness", Arrays.asList((Object) null)))
        .hasMessage(
            "Cannot run query freshness: parameter 1 is null; Athena parameters must be String,"
                + " Long or Integer");
  }

  @Test
  void throttlingIsRecognisedWhicheverWayAthenaSaysIt() {
    assertThat(AthenaQueryRunner.isThrottling(service(429, "SlowDown", "slow down"))).isTrue();
    assertThat(AthenaQueryRunner.isThrottling(service(400, "ThrottlingException", "x"))).isTrue();
    assertThat(AthenaQueryRunner.isThrottling(service(400, "TooManyRequestsException", "x")))
        .isTrue();
    assertThat(
            AthenaQueryRunner.isThrottling(
                service(400, "InvalidRequestException", "Rate exceeded")))
        .isTrue();
    assertThat(AthenaQueryRunner.isThrottling(service(400, "InvalidRequestException", "bad SQL")))
        .isFalse();
    assertThat(AthenaQueryRunner.isThrottling(SdkClientException.create("Connection refused")))
        .isFalse();
  }

  private static AwsServiceException service(int status, String code, String message) {
    return AwsServiceException.builder()
        .statusCode(status)
        .message(message)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).build())
        .build();
  }
}
