package io.tidemark.ingest;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The job's package structure: dependencies point one way, from the command line through the run to
 * the stages and the kernel, and no package cycle comes back.
 */
@AnalyzeClasses(
    packages = "io.tidemark.ingest",
    importOptions = ImportOption.DoNotIncludeTests.class)
class TestArchitecture {
  private static final String ROOT = "io.tidemark.ingest";

  /** The packages a run is made of; none knows the orchestrator that calls them. */
  private static final String[] STAGES = {
    ROOT + ".kernel..",
    ROOT + ".config..",
    ROOT + ".metrics..",
    ROOT + ".s3..",
    ROOT + ".tables..",
    ROOT + ".checkpoint..",
    ROOT + ".discovery..",
    ROOT + ".validate..",
    ROOT + ".merge..",
    ROOT + ".commit..",
    ROOT + ".lease..",
    ROOT + ".report.."
  };

  /**
   * One slice per first sub-package of the job ({@code io.tidemark.ingest.merge..} is {@code
   * merge}); a class in the root package is a slice of its own, so that a class put back there is
   * part of the check too.
   */
  private static final SliceAssignment FIRST_SUB_PACKAGE =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          if (p.equals(ROOT)) {
            return SliceIdentifier.of("(root)");
          }
          if (!p.startsWith(ROOT + ".")) {
            return SliceIdentifier.ignore();
          }
          String rest = p.substring(ROOT.length() + 1);
          int dot = rest.indexOf('.');
          return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
        }

        @Override
        public String getDescription() {
          return "the first sub-package of " + ROOT;
        }
      };

  @ArchTest
  static final ArchRule noPackageCycles =
      slices().assignedFrom(FIRST_SUB_PACKAGE).should().beFreeOfCycles();

  @ArchTest
  static final ArchRule noClassInTheRootPackage =
      noClasses()
          .should()
          .resideInAPackage(ROOT)
          .because(
              "the root package is where the old import cycle started: every class has a home");

  @ArchTest
  static final ArchRule stagesDoNotKnowTheRunOrTheCommandLine =
      noClasses()
          .that()
          .resideInAnyPackage(STAGES)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(ROOT + ".run..", ROOT + ".cli..");

  @ArchTest
  static final ArchRule theRunDoesNotKnowTheCommandLine =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".run..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage(ROOT + ".cli..");

  @ArchTest
  static final ArchRule theKernelDependsOnNothingElseOfTheJob =
      noClasses()
          .that()
          .resideInAPackage(ROOT + ".kernel..")
          .should()
          .dependOnClassesThat(
              resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(ROOT + ".kernel.."))));
}
