package io.tidemark.model.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A test class bound to one backend, for suites that cannot take the emulator as a parameter (a
 * Quarkus test gets its endpoint from a test resource before the application starts): the class is
 * skipped, with {@link AwsBackend#skipReason} as the reason, where that backend does not run it. A
 * moto class and a LocalStack subclass of it make the pair {@link AwsSuite} makes per method.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EnabledOnAwsBackend.Condition.class)
public @interface EnabledOnAwsBackend {
  AwsBackend value();

  AwsService[] services();

  /** Evaluates {@link EnabledOnAwsBackend} on the test class. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return context
          .getTestClass()
          .flatMap(c -> AnnotationSupport.findAnnotation(c, EnabledOnAwsBackend.class))
          .map(
              on ->
                  on.value()
                      .skipReason(Set.of(on.services()))
                      .map(ConditionEvaluationResult::disabled)
                      .orElseGet(
                          () -> ConditionEvaluationResult.enabled("runs on " + on.value().label())))
          .orElseGet(() -> ConditionEvaluationResult.enabled("no @EnabledOnAwsBackend"));
    }
  }
}
