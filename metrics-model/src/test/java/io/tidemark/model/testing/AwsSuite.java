package io.tidemark.model.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose {@link AwsTest} methods run once on each {@link AwsBackend}: one test base,
 * two emulators. Each backend's emulator is started once for the class, on its first test, reset
 * before each test and stopped after the class; the test (and its {@code @BeforeEach} methods) take
 * it as an {@link AwsEmulator} parameter. A backend that does not run the suite (see {@link
 * AwsBackend#skipReason}) shows its tests as skipped, with the reason as the skip message and in
 * the display name.
 *
 * <pre>{@code
 * @AwsSuite(services = AwsService.S3)
 * class TestSomethingOnS3 {
 *   @AwsTest
 *   void works(AwsEmulator aws) { ... aws.endpoint() ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(AwsSuiteExtension.class)
public @interface AwsSuite {
  /** What the suite needs: a backend lacking one of these skips the suite, saying which. */
  AwsService[] services();

  /** Whether each test starts on an emptied emulator. */
  boolean resetBeforeEach() default true;
}
