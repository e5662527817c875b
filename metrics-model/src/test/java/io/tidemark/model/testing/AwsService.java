package io.tidemark.model.testing;

/** What a suite needs of an AWS emulator: a service's API, or an emulator's own control API. */
public enum AwsService {
  S3("S3"),
  GLUE("the Glue Data Catalog"),
  CLOUDWATCH("CloudWatch"),
  CLOUDFORMATION("CloudFormation"),
  ATHENA("Athena"),
  /** EventBridge, with rules that deliver to SQS queues (where a test reads the events). */
  EVENTBRIDGE("EventBridge with SQS targets"),
  /**
   * moto's own control API under {@code /moto-api/}: queued Athena result sets and manual state
   * transitions, which the Athena-lifecycle suites drive. No other emulator has it.
   */
  MOTO_API("moto's control API (queued Athena result sets, manual query state transitions)");

  private final String description;

  AwsService(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
