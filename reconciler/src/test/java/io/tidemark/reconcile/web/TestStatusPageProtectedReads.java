package io.tidemark.reconcile.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tidemark.reconcile.fixtures.HeadlessChromium;
import io.tidemark.reconcile.fixtures.QuarkusFixtures;
import io.tidemark.reconcile.rest.TestProtectedReads;
import java.net.URL;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * With {@code tidemark.api.protect-reads} on, the page shows nothing until it is given the API key,
 * keeps it in the tab's sessionStorage only, and sends it with every data call.
 */
@QuarkusTest
@QuarkusTestResource(QuarkusFixtures.class)
// The REST suite's profile: one service start serves both classes.
@TestProfile(TestProtectedReads.ProtectReads.class)
@Tag("browser")
class TestStatusPageProtectedReads {
  private static HeadlessChromium browser;

  @TestHTTPResource("/")
  URL page;

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

  private static WebElement visible(String css) {
    return new WebDriverWait(browser.driver(), Duration.ofSeconds(60))
        .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  private static void enterKey(String key) {
    visible("[data-testid=enter-key]").click();
    WebElement input = visible("#key-input");
    input.sendKeys(key);
    browser.driver().findElement(By.id("key-ok")).click();
  }

  private static Object script(String js) {
    return ((JavascriptExecutor) browser.driver()).executeScript(js);
  }

  @Test
  void thePageAsksForTheKeyRefusesAWrongOneAndShowsTheDataWithTheRightOne() {
    browser.driver().get(page.toString());
    assertThat(visible("[data-testid=locked]").getText())
        .contains("This service protects its data")
        .contains("401 Unauthorized")
        .contains("this needs the API key (401 Unauthorized)")
        .contains("header X-API-Key is missing");
    assertThat(browser.driver().findElements(By.cssSelector("[data-dataset]"))).isEmpty();

    enterKey("wrong-key-1234");
    new WebDriverWait(browser.driver(), Duration.ofSeconds(30))
        .until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("[data-testid=locked-message]"), "holds no valid key"));
    assertThat(visible("[data-testid=locked-message]").getText())
        .contains("the API key was refused (401 Unauthorized)");
    assertThat(script("return sessionStorage.getItem('tidemark.apiKey')")).isNull();

    enterKey(QuarkusFixtures.API_KEY);
    visible("[data-dataset=customers]");
    assertThat(script("return sessionStorage.getItem('tidemark.apiKey')"))
        .isEqualTo(QuarkusFixtures.API_KEY);
    assertThat(script("return localStorage.length + document.cookie.length"))
        .as("the key is kept in the tab's sessionStorage only")
        .isEqualTo(0L);

    // Every data call of the dataset view and the progress polls carry the key.
    browser.driver().findElement(By.cssSelector("[data-dataset=customers] a")).click();
    new Select(visible("[data-testid=mode]")).selectByValue("full");
    browser.driver().findElement(By.cssSelector("[data-testid=start]")).click();
    WebElement input = visible("#key-input");
    assertThat(input.getAttribute("value")).as("the tab's key, offered").isNotEmpty();
    browser.driver().findElement(By.id("key-ok")).click();
    WebElement result = visible("[data-testid=start-result]");
    assertThat(result.getAttribute("data-result")).isEqualTo("PASSED");
    assertThat(visible("[data-testid=runs]").getText()).contains("SUCCEEDED");
  }
}
