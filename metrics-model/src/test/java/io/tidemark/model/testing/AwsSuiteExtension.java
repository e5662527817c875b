package io.tidemark.model.testing;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/** Runs the {@link AwsTest} methods of an {@link AwsSuite} class once per {@link AwsBackend}. */
public final class AwsSuiteExtension implements TestTemplateInvocationContextProvider {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(AwsSuiteExtension.class);

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return context.getTestMethod().map(m -> m.isAnnotationPresent(AwsTest.class)).orElse(false);
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(
      ExtensionContext context) {
    AwsSuite suite = suite(context);
    Set<AwsService> services = Set.of(suite.services());
    return Stream.of(AwsBackend.values())
        .map(b -> new OnBackend(b, b.skipReason(services), suite.resetBeforeEach()));
  }

  private static AwsSuite suite(ExtensionContext context) {
    Class<?> type = context.getRequiredTestClass();
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      Optional<AwsSuite> suite = AnnotationSupport.findAnnotation(c, AwsSuite.class);
      if (suite.isPresent()) {
        return suite.get();
      }
    }
    throw new IllegalStateException(type.getName() + " has @AwsTest methods but no @AwsSuite");
  }

  /**
   * The emulator of {@code backend} for the test class, started on first use and stopped (the store
   * closes what it holds) when the class is done.
   */
  private static AwsEmulator emulator(ExtensionContext context, AwsBackend backend) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(backend, b -> backend.start(), AwsEmulator.class);
  }

  /** One run of a test on one backend. */
  private record OnBackend(AwsBackend backend, Optional<String> skip, boolean reset)
      implements TestTemplateInvocationContext {
    @Override
    public String getDisplayName(int invocationIndex) {
      return skip.map(why -> "[" + backend.label() + "] " + why)
          .orElse("[" + backend.label() + "]");
    }

    @Override
    public List<Extension> getAdditionalExtensions() {
      return List.of(
          (ExecutionCondition)
              c ->
                  skip.map(ConditionEvaluationResult::disabled)
                      .orElseGet(
                          () -> ConditionEvaluationResult.enabled("runs on " + backend.label())),
          (BeforeEachCallback)
              c -> {
                AwsEmulator aws = emulator(c, backend);
                if (reset) {
                  aws.reset();
                }
              },
          new ParameterResolver() {
            @Override
            public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
              return p.getParameter().getType() == AwsEmulator.class;
            }

            @Override
            public Object resolveParameter(ParameterContext p, ExtensionContext c) {
              return emulator(c, backend);
            }
          });
    }
  }
}
