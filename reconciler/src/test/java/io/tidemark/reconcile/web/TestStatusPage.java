package io.tidemark.reconcile.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tidemark.reconcile.fixtures.GatedEngine;
import io.tidemark.reconcile.fixtures.HeadlessChromium;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.TestReconciliationApi;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The status page in a real headless Chromium against the real service and its fixtures: what a
 * data engineer sees and does on it.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
@Tag("browser")
class TestStatusPage {
  private static HeadlessChromium browser;

  @TestHTTPResource("/")
  URL page;

  @Inject GatedEngine gate;

  @BeforeAll
  static void startBrowser() {
    browser = HeadlessChromium.start();
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) {
      browser.close();
    }
  }

  @BeforeEach
  void freshTab() {
    browser.resize(1280, 900);
    driver().get(page.toString());
    ((JavascriptExecutor) driver()).executeScript("sessionStorage.clear()");
  }

  /** The page logged no script error; refused requests (a test's 401 or 409) are expected. */
  @AfterEach
  void noScriptErrors() {
    assertThat(browser.consoleErrors())
        .filteredOn(m -> !m.contains("Failed to load resource"))
        .isEmpty();
  }

  private static WebDriver driver() {
    return browser.driver();
  }

  private static WebDriverWait waiting() {
    return new WebDriverWait(driver(), Duration.ofSeconds(60));
  }

  private void open(String hash) {
    driver().get(page.toString() + hash);
    driver().navigate().refresh();
  }

  private static WebElement visible(String css) {
    return waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  /** Fills the API key dialog and confirms it. */
  private static void enterKey(String key) {
    WebElement input = visible("#key-input");
    input.clear();
    input.sendKeys(key);
    driver().findElement(By.id("key-ok")).click();
  }

  /** Starts a reconciliation from the dataset view with the start button. */
  private void startFromPage(String dataset, String mode, String key) {
    open("#/dataset/" + dataset);
    new Select(visible("[data-testid=mode]")).selectByValue(mode);
    driver().findElement(By.cssSelector("[data-testid=start]")).click();
    enterKey(key);
  }

  /** How far the page is wider than the window, in CSS pixels (0 or less: it fits). */
  private static int horizontalOverflow() {
    return ((Number)
            ((JavascriptExecutor) driver())
                .executeScript("return document.documentElement.scrollWidth - window.innerWidth"))
        .intValue();
  }

  private static WebElement finishedResult() {
    return waiting()
        .until(
            ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("[data-testid=start-result]")));
  }

  @Test
  void theOverviewListsEveryDatasetWorstFirstWithItsLastRunsAndAlarms() {
    TestReconciliationApi.awaitFinished(
        TestReconciliationApi.start("{\"dataset\":\"damaged\",\"mode\":\"full\"}"));

    open("#/");
    visible("[data-dataset]");
    List<String> names =
        driver().findElements(By.cssSelector("[data-dataset]")).stream()
            .map(e -> e.getAttribute("data-dataset"))
            .toList();
    assertThat(names)
        .containsExactlyInAnyOrder(
            "customers", "damaged", "gated", "hostile", "orders", "windowed");
    assertThat(names.indexOf("damaged"))
        .as("the failing dataset comes before those that only lack a reconciliation")
        .isLessThan(names.indexOf("customers"))
        .isLessThan(names.indexOf("gated"))
        .isLessThan(names.indexOf("windowed"));
    assertThat(driver().findElement(By.cssSelector("[data-dataset]")).getAttribute("class"))
        .as("the first card is marked as failing")
        .contains("bad");

    WebElement damaged = driver().findElement(By.cssSelector("[data-dataset=damaged]"));
    assertThat(damaged.findElement(By.cssSelector("[data-testid=reconciliation]")).getText())
        .contains("FAILED")
        .contains("FULL")
        .contains("missing_keys");
    assertThat(damaged.findElement(By.cssSelector("[data-testid=alarms]")).getText())
        .contains("in ALARM")
        .contains("rule-missing-keys-failing");
    assertThat(damaged.findElement(By.cssSelector("[data-testid=ingest]")).getText())
        .contains("SUCCEEDED")
        .contains("incremental")
        .contains("lag 1 h 0 min");
    WebElement customers = driver().findElement(By.cssSelector("[data-dataset=customers]"));
    assertThat(customers.findElement(By.cssSelector("[data-testid=ingest]")).getText())
        .contains("SUCCEEDED");
    browser.screenshot("overview.png");

    browser.resize(390, 844);
    visible("[data-dataset=damaged]");
    assertThat(horizontalOverflow()).as("no sideways scrolling on a phone").isLessThanOrEqualTo(0);
    browser.screenshot("overview-phone.png");
  }

  /**
   * Before this change a dataset page said only "the service answered 500" when one run report of
   * the state root was truncated; it now shows the runs and names what was left out.
   */
  @Test
  void aTruncatedRunReportLeavesTheRunsShownAndIsNamedOnThePage() {
    open("#/dataset/customers");
    assertThat(visible("[data-testid=last-run]").getText()).contains("SUCCEEDED");
    String named = visible("[data-testid=unreadable]").getText();
    assertThat(named)
        .contains("2 stored reports could not be read")
        .contains(QuarkusFixtures.TRUNCATED_RUN_REPORT)
        .contains("(run report)")
        .contains(QuarkusFixtures.BROKEN_RECONCILIATION_REPORT)
        .contains("(reconciliation report)");
    assertThat(driver().findElements(By.cssSelector("[data-testid=view-error]"))).isEmpty();
  }

  /**
   * A composite key (order_id string + line_nr int) is shown whole in a failing rule's samples,
   * with the columns it is made of, on the DMS orders dataset of the fixtures.
   */
  @Test
  void aCompositeKeyIsShownWholeInTheSamplesOfAFailingRule() {
    startFromPage("orders", "full", QuarkusFixtures.API_KEY);
    WebElement result = finishedResult();
    assertThat(result.getAttribute("data-result")).isEqualTo("FAILED");
    assertThat(visible("[data-testid=dataset-name]").getText()).isEqualTo("orders");

    for (String[] ruleAndKey :
        new String[][] {{"missing_keys", "O-1|2"}, {"value_mismatches", "O-2|1"}}) {
      WebElement rule = visible("[data-testid=report] tr[data-rule=" + ruleAndKey[0] + "]");
      assertThat(rule.getText()).contains("FAIL");
      rule.findElement(By.cssSelector("[data-testid=rule-toggle]")).click();
      WebElement detail =
          driver().findElement(By.cssSelector("tr[data-detail=" + ruleAndKey[0] + "]"));
      assertThat(detail.findElements(By.cssSelector("[data-testid=sample-keys] li")))
          .as(ruleAndKey[0])
          .extracting(WebElement::getText)
          .containsExactly(ruleAndKey[1]);
      assertThat(detail.getText()).as("the key's columns are named").contains("order_id|line_nr");
    }
    // The one-cent difference, shown column by column: raw's amount beside curated's, marked.
    WebElement diff = visible("tr[data-detail=value_mismatches] [data-testid=diff]");
    assertThat(diff.findElement(By.cssSelector("[data-testid=diff-columns]")).getText())
        .isEqualTo("Keys differing per column, of 1: amount 1, order_date 0, paid 0");
    WebElement key = diff.findElement(By.cssSelector("[data-testid=diff-key][data-key='O-2|1']"));
    WebElement amount = key.findElement(By.cssSelector("tr[data-column=amount]"));
    assertThat(amount.findElements(By.cssSelector("td")))
        .extracting(WebElement::getText)
        .containsExactly("99.99", "99.98");
    assertThat(amount.findElements(By.cssSelector("td.differs"))).hasSize(2);
    assertThat(key.findElements(By.cssSelector("tr[data-column=paid] td.differs"))).isEmpty();
    assertThat(key.findElement(By.cssSelector("[data-testid=diff-blame]")).getText())
        .startsWith("snapshot ");
    // A missing line has raw's side only.
    WebElement missing =
        visible("tr[data-detail=missing_keys] [data-testid=diff-key][data-key='O-1|2']");
    assertThat(missing.findElement(By.cssSelector("[data-testid=diff-blame]")).getText())
        .isEqualTo("no row");
    browser.screenshot("composite-key.png");
  }

  /**
   * A failing rule is acknowledged from its detail (who, why) and shown as such in the report and
   * on the overview, then withdrawn; the rule fails throughout.
   */
  @Test
  void aFailingRuleIsAcknowledgedFromThePageAndWithdrawnAgain() {
    startFromPage("damaged", "full", QuarkusFixtures.API_KEY);
    assertThat(finishedResult().getAttribute("data-result")).isEqualTo("FAILED");
    try {
      visible("[data-testid=report] tr[data-rule=missing_keys] [data-testid=rule-toggle]").click();
      WebElement detail = visible("tr[data-detail=missing_keys]");
      detail.findElement(By.cssSelector("[data-testid=ack-by]")).sendKeys("ana");
      detail.findElement(By.cssSelector("[data-testid=ack-note-input]")).sendKeys("TICKET-12");
      detail.findElement(By.cssSelector("[data-testid=ack-button]")).click();

      WebElement row =
          waiting()
              .until(
                  ExpectedConditions.visibilityOfElementLocated(
                      By.cssSelector(
                          "[data-testid=report] tr[data-rule=missing_keys]"
                              + " [data-testid=ack-badge]")));
      assertThat(row.getText()).isEqualTo("acknowledged");
      assertThat(
              driver()
                  .findElement(By.cssSelector("[data-testid=report] tr[data-rule=missing_keys]"))
                  .getText())
          .as("the rule still fails")
          .contains("FAIL");
      visible("[data-testid=report] tr[data-rule=missing_keys] [data-testid=rule-toggle]").click();
      WebElement ack = visible("tr[data-detail=missing_keys] [data-testid=acknowledgement]");
      assertThat(ack.getText())
          .contains("Acknowledged by ana")
          .contains("TICKET-12")
          .contains("observes at most 1 and names nothing but the 1 acknowledged");
      browser.screenshot("dataset-damaged-acknowledged.png");

      open("#/");
      assertThat(visible("[data-dataset=damaged] [data-testid=failing-rules]").getText())
          .isEqualTo("missing_keys (acknowledged), foreign_commits");

      open("#/dataset/damaged");
      visible("[data-testid=report] tr[data-rule=missing_keys] [data-testid=rule-toggle]").click();
      visible("tr[data-detail=missing_keys] [data-testid=ack-withdraw]").click();
      waiting()
          .until(
              ExpectedConditions.visibilityOfElementLocated(
                  By.cssSelector(
                      "[data-testid=report] tr[data-rule=missing_keys] [data-testid=rule-toggle]")));
      waiting()
          .until(
              d ->
                  d.findElements(
                          By.cssSelector(
                              "[data-testid=report] tr[data-rule=missing_keys]"
                                  + " [data-testid=ack-badge]"))
                      .isEmpty());
    } finally {
      // Leave the dataset as other tests expect it, whatever happened above.
      io.restassured.RestAssured.given()
          .header(io.tidemark.reconcile.rest.ApiKeyFilter.HEADER, QuarkusFixtures.API_KEY)
          .delete("/api/datasets/damaged/acknowledgements/missing_keys");
    }
  }

  @Test
  void aDamagedTableShowsItsFailingRulesWithTheirSampleKeysAndReason() {
    startFromPage("damaged", "full", QuarkusFixtures.API_KEY);
    WebElement result = finishedResult();
    assertThat(result.getAttribute("data-result")).isEqualTo("FAILED");
    // The row was deleted by a commit no Tidemark run made: foreign_commits names it too.
    assertThat(result.getText()).contains("2 rules not passing: missing_keys, foreign_commits");

    WebElement rule = visible("[data-testid=report] tr[data-rule=missing_keys]");
    assertThat(rule.getText()).contains("FAIL");
    WebElement detail = driver().findElement(By.cssSelector("tr[data-detail=missing_keys]"));
    assertThat(detail.isDisplayed()).as("closed until asked").isFalse();
    rule.findElement(By.cssSelector("[data-testid=rule-toggle]")).click();
    assertThat(detail.isDisplayed()).isTrue();
    assertThat(detail.findElements(By.cssSelector("[data-testid=sample-keys] li")))
        .extracting(WebElement::getText)
        .containsExactly("k10");
    assertThat(detail.findElement(By.cssSelector("[data-testid=rule-reason]")).getText())
        .isNotBlank();
    visible("[data-testid=report] tr[data-rule=foreign_commits]")
        .findElement(By.cssSelector("[data-testid=rule-toggle]"))
        .click();
    WebElement commits = driver().findElement(By.cssSelector("tr[data-detail=foreign_commits]"));
    assertThat(commits.getText()).as("its samples are commits, not keys").contains("commits (1):");
    assertThat(commits.findElements(By.cssSelector("[data-testid=sample-keys] li")))
        .extracting(WebElement::getText)
        .singleElement()
        .asString()
        .startsWith("snapshot ")
        .contains(": delete by an unnamed writer");
    assertThat(
            driver()
                .findElement(By.cssSelector("[data-testid=report] tr[data-rule=duplicate_keys]"))
                .getText())
        .contains("PASS");

    assertThat(driver().findElement(By.cssSelector("[data-testid=quarantine]")).getText())
        .contains("NULL_KEY")
        .contains("MISSING_CHANGE_MARKER")
        .contains("UNKNOWN_OPERATION");
    assertThat(driver().findElements(By.cssSelector("[data-testid=runs] svg.chart")).size())
        .as("records, files, watermark lag and duration charts")
        .isEqualTo(4);
    assertThat(driver().findElements(By.cssSelector("[data-testid=run-mode]")))
        .as("each run's mode, as --mode spells it")
        .extracting(WebElement::getText)
        .containsOnly("incremental");
    browser.screenshot("dataset-damaged.png");

    browser.resize(390, 844);
    assertThat(horizontalOverflow()).as("no sideways scrolling on a phone").isLessThanOrEqualTo(0);
    browser.screenshot("dataset-damaged-phone.png");
  }

  @Test
  void theAlarmsPageShowsEachAlarmsReasonAndTheDatapointsThatDecidedIt() {
    TestReconciliationApi.awaitFinished(
        TestReconciliationApi.start("{\"dataset\":\"damaged\",\"mode\":\"full\"}"));
    open("#/alarms");
    WebElement alarm = visible("[data-alarm='tidemark-default-damaged-rule-missing-keys-failing']");
    assertThat(alarm.getText())
        .contains("ALARM")
        .contains("1 of 1 periods breached")
        .contains("alarms when Maximum >= 1.0 over 300 s");
    assertThat(alarm.findElements(By.cssSelector("[data-testid=datapoints] svg circle")))
        .isNotEmpty();
    List<WebElement> states = driver().findElements(By.cssSelector("[data-alarm] .badge"));
    assertThat(states.get(0).getText()).as("alarms in ALARM first").isEqualTo("ALARM");
    browser.screenshot("alarms.png");
  }

  @Test
  void theStartButtonShowsProgressThenTheResultWithoutAReload() {
    Object marker =
        ((JavascriptExecutor) driver()).executeScript("return window.tidemarkMarker = 'same page'");
    assertThat(marker).isEqualTo("same page");
    gate.close();
    visible("[data-dataset=gated]");
    driver().findElement(By.cssSelector("[data-dataset=gated] [data-testid=dataset-link]")).click();
    new Select(visible("[data-testid=mode]")).selectByValue("full");
    driver().findElement(By.cssSelector("[data-testid=start]")).click();
    enterKey(QuarkusFixtures.API_KEY);
    try {
      waiting()
          .until(
              ExpectedConditions.textToBePresentInElementLocated(
                  By.cssSelector("[data-testid=start-status]"), "Running FULL reconciliation"));
    } finally {
      gate.open();
    }
    WebElement result = finishedResult();
    assertThat(result.getAttribute("data-result")).isEqualTo("PASSED");
    assertThat(result.getText()).contains("every rule passed");
    assertThat(((JavascriptExecutor) driver()).executeScript("return window.tidemarkMarker"))
        .as("the page was not reloaded")
        .isEqualTo("same page");
    assertThat(visible("[data-testid=report]").getText()).contains("PASSED").contains("FULL");
  }

  @Test
  void aSecondStartWhileOneRunsSaysSoInWords() {
    gate.close();
    String running = null;
    try {
      running = TestReconciliationApi.start("{\"dataset\":\"gated\"}");
      startFromPage("gated", "window", QuarkusFixtures.API_KEY);
      WebElement error = visible("[data-testid=start-error]");
      assertThat(error.getText())
          .contains("already running (409 Conflict)")
          .contains(running)
          .contains("Wait for it to finish");
    } finally {
      gate.open();
      if (running != null) {
        TestReconciliationApi.awaitFinished(running);
      }
    }
  }

  @Test
  void aKeyThatIsMarkupIsShownAsText() {
    TestReconciliationApi.awaitFinished(
        TestReconciliationApi.start("{\"dataset\":\"hostile\",\"mode\":\"full\"}"));
    open("#/dataset/hostile");
    WebElement rule = visible("[data-testid=report] tr[data-rule=unexpected_keys]");
    rule.findElement(By.cssSelector("[data-testid=rule-toggle]")).click();
    assertThat(
            driver()
                .findElements(
                    By.cssSelector("tr[data-detail=unexpected_keys] [data-testid=sample-keys] li")))
        .extracting(WebElement::getText)
        .containsExactly(QuarkusFixtures.HOSTILE_KEY);
    assertThat(driver().findElements(By.cssSelector("#view img"))).isEmpty();
    assertThat(((JavascriptExecutor) driver()).executeScript("return window.tidemarkXss"))
        .as("no script of the data ran")
        .isNull();
  }

  @Test
  void aWrongKeyShowsThe401Message() {
    startFromPage("customers", "window", "not-the-key-123");
    WebElement error = visible("[data-testid=start-error]");
    assertThat(error.getText())
        .contains("Cannot start a reconciliation: the API key was refused (401 Unauthorized)")
        .contains("holds no valid key")
        .doesNotContain("not-the-key-123");
    assertThat(
            ((JavascriptExecutor) driver())
                .executeScript("return sessionStorage.getItem('tidemark.apiKey')"))
        .as("a refused key is not kept")
        .isNull();
  }
}
