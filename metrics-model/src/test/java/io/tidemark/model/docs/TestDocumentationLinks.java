package io.tidemark.model.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.model.testing.ProjectFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README and the docs leads somewhere: the file exists, and an anchor
 * names a heading of that file (as GitHub makes anchors of headings).
 */
class TestDocumentationLinks {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

  @Test
  void everyRelativeLinkAndAnchorResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path doc : documents()) {
      String text = withoutCode(Files.readString(doc));
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue; // http(s), mailto: not ours to check offline
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path linked = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
          broken.add(name(doc) + ": " + target + " (no such file)");
        } else if (anchor != null && !anchors(linked).contains(anchor)) {
          broken.add(name(doc) + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  private static List<Path> documents() throws IOException {
    Path root = ProjectFiles.root();
    List<Path> out = new ArrayList<>();
    out.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }

  private static String name(Path doc) {
    return ProjectFiles.root().relativize(doc).toString();
  }

  /** The text outside fenced code blocks. */
  private static String withoutCode(String text) {
    StringBuilder out = new StringBuilder();
    boolean fence = false;
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("```")) {
        fence = !fence;
      } else if (!fence) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  /** The anchors GitHub gives a Markdown file's headings. */
  static Set<String> anchors(Path file) throws IOException {
    Set<String> out = new HashSet<>();
    Set<String> seen = new HashSet<>();
    if (!file.toString().endsWith(".md")) {
      return out;
    }
    for (String line : withoutCode(Files.readString(file)).split("\n")) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String slug = slug(h.group(1));
        String unique = slug;
        for (int i = 1; !seen.add(unique); i++) {
          unique = slug + "-" + i;
        }
        out.add(unique);
      }
    }
    return out;
  }

  static String slug(String heading) {
    String plain = heading.replaceAll("`", "").replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1");
    return plain.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }

  @Test
  void slugsAreGitHubs() {
    assertThat(slug("Two AWS backends: moto and LocalStack"))
        .isEqualTo("two-aws-backends-moto-and-localstack");
    assertThat(slug("The job jar for Glue and EMR")).isEqualTo("the-job-jar-for-glue-and-emr");
    assertThat(slug("`bin/test` --fast")).isEqualTo("bintest---fast");
  }
}
