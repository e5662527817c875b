package io.tidemark.reconcile.metrics;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tidemark.model.testing.AwsBackend;
import io.tidemark.model.testing.AwsService;
import io.tidemark.model.testing.EnabledOnAwsBackend;
import io.tidemark.reconcile.fixtures.LocalStackServer;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * {@link TestCloudWatchOnMoto}'s tests with the CloudWatch registry pointed at LocalStack instead:
 * run where Testcontainers finds a Docker engine, skipped with that reason where it finds none.
 */
@QuarkusTest
@TestProfile(TestCloudWatchOnLocalStack.OnLocalStack.class)
@EnabledOnAwsBackend(value = AwsBackend.LOCALSTACK, services = AwsService.CLOUDWATCH)
@Tag("aws")
class TestCloudWatchOnLocalStack extends TestCloudWatchOnMoto {
  /** The CloudWatch registry on, publishing every second to LocalStack. */
  public static class OnLocalStack extends OnMoto {
    @Override
    public List<TestResourceEntry> testResources() {
      return List.of(new TestResourceEntry(LocalStackServer.class));
    }
  }
}
