package io.tidemark.reconcile;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciler's package structure, checked on its compiled main classes: dependencies point one
 * way, from the service down to the engines, and no two packages depend on each other.
 */
class TestArchitecture {
  private static final String ROOT = "io.tidemark.reconcile";
  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
  }

  @Test
  void noPackageCycles() {
    // (**): every package is a slice of its own, so engine and engine.duckdb are two.
    slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(classes);
  }

  @Test
  void enginesStorageAndKernelNeverReachTheService() {
    noClasses()
        .that()
        .resideInAnyPackage(ROOT + ".engine..", ROOT + ".storage..", ROOT + ".kernel..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            ROOT + ".config..", ROOT + ".rest..", ROOT + ".service..", ROOT + ".wiring..")
        .check(classes);
  }

  @Test
  void theEngineSpiKnowsNoEngine() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".engine")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            ROOT + ".engine.sql..",
            ROOT + ".engine.duckdb..",
            ROOT + ".engine.athena..",
            ROOT + ".wiring..")
        .check(classes);
  }

  @Test
  void enginesKnowEachOtherOnlyThroughTheSharedSql() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".engine.duckdb..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(ROOT + ".engine.athena..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".engine.athena..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(ROOT + ".engine.duckdb..")
        .check(classes);
  }

  @Test
  void theKernelDependsOnNoOtherPackage() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".kernel..")
        .should()
        .dependOnClassesThat(
            resideInAPackage(ROOT + "..").and(not(resideInAnyPackage(ROOT + ".kernel.."))))
        .check(classes);
  }
}
