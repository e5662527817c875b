package io.tidemark.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves the intrinsic functions the stack uses ({@code Ref}, {@code Fn::Sub}, {@code
 * Fn::GetAtt}, {@code Fn::Join}, {@code Fn::Select}, {@code Fn::Split}, {@code Fn::If}, {@code
 * Fn::Equals}, {@code Fn::Not}, {@code Fn::And}, {@code Condition}) the way CloudFormation does
 * when it creates a resource, so that a test can create a resource moto's CloudFormation skips
 * through the service's own API, with the properties CloudFormation would send.
 */
final class Intrinsics {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern VAR = Pattern.compile("\\$\\{(!?)([A-Za-z0-9_:.]+)}");

  private final Map<String, String> refs;
  private final Map<String, String> attributes;
  private final Map<String, Boolean> conditions = new HashMap<>();

  /**
   * @param refs what {@code Ref} returns: parameters, pseudo parameters and resources by name
   * @param attributes what {@code Fn::GetAtt} returns, by {@code Resource.Attribute}
   * @param template whose {@code Conditions} are evaluated with those values
   */
  Intrinsics(Map<String, String> refs, Map<String, String> attributes, JsonNode template) {
    this.refs = refs;
    this.attributes = attributes;
    template
        .path("Conditions")
        .fields()
        .forEachRemaining(e -> conditions.put(e.getKey(), resolve(e.getValue()).asBoolean()));
  }

  /** The node resolved; null where it resolves to {@code AWS::NoValue} (the key is left out). */
  JsonNode resolve(JsonNode node) {
    if (node.isArray()) {
      ArrayNode out = MAPPER.createArrayNode();
      for (JsonNode n : node) {
        JsonNode v = resolve(n);
        if (v != null) {
          out.add(v);
        }
      }
      return out;
    }
    if (!node.isObject()) {
      return node;
    }
    if (node.size() == 1) {
      String fn = node.fieldNames().next();
      JsonNode arg = node.get(fn);
      switch (fn) {
        case "Ref":
          return arg.asText().equals("AWS::NoValue") ? null : text(value(arg.asText()));
        case "Fn::Sub":
          return text(substitute(arg.asText()));
        case "Fn::GetAtt":
          return text(attribute(arg.get(0).asText() + "." + arg.get(1).asText()));
        case "Fn::Join":
          {
            List<String> parts = new ArrayList<>();
            resolve(arg.get(1)).forEach(p -> parts.add(p.asText()));
            return text(String.join(arg.get(0).asText(), parts));
          }
        case "Fn::Select":
          return resolve(arg.get(1)).get(resolve(arg.get(0)).asInt());
        case "Fn::Split":
          {
            ArrayNode out = MAPPER.createArrayNode();
            for (String p :
                resolve(arg.get(1)).asText().split(Pattern.quote(arg.get(0).asText()))) {
              out.add(p);
            }
            return out;
          }
        case "Fn::If":
          {
            Boolean c = conditions.get(arg.get(0).asText());
            assertThat(c).as("condition %s", arg.get(0)).isNotNull();
            return resolve(arg.get(c ? 1 : 2));
          }
        case "Fn::Equals":
          return MAPPER
              .getNodeFactory()
              .booleanNode(resolve(arg.get(0)).asText().equals(resolve(arg.get(1)).asText()));
        case "Fn::Not":
          return MAPPER.getNodeFactory().booleanNode(!resolve(arg.get(0)).asBoolean());
        case "Fn::And":
          {
            boolean all = true;
            for (JsonNode a : arg) {
              all &= resolve(a).asBoolean();
            }
            return MAPPER.getNodeFactory().booleanNode(all);
          }
        case "Condition":
          {
            Boolean c = conditions.get(arg.asText());
            assertThat(c).as("condition %s, declared before its use", arg).isNotNull();
            return MAPPER.getNodeFactory().booleanNode(c);
          }
        default:
          break;
      }
    }
    ObjectNode out = MAPPER.createObjectNode();
    node.fields()
        .forEachRemaining(
            e -> {
              JsonNode v = resolve(e.getValue());
              if (v != null) {
                out.set(e.getKey(), v);
              }
            });
    return out;
  }

  /** Fn::Sub: {@code ${Name}} and {@code ${Resource.Attribute}} filled in, {@code ${!x}} kept. */
  String substitute(String text) {
    Matcher m = VAR.matcher(text);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String name = m.group(2);
      String v =
          !m.group(1).isEmpty()
              ? "${" + name + "}"
              : name.contains(".") && !name.startsWith("AWS::") ? attribute(name) : value(name);
      m.appendReplacement(sb, Matcher.quoteReplacement(v));
    }
    return m.appendTail(sb).toString();
  }

  private String value(String name) {
    String v = refs.get(name);
    assertThat(v).as("a value for Ref %s", name).isNotNull();
    return v;
  }

  private String attribute(String name) {
    String v = attributes.get(name);
    assertThat(v).as("a value for Fn::GetAtt %s", name).isNotNull();
    return v;
  }

  private static JsonNode text(String s) {
    return MAPPER.getNodeFactory().textNode(s);
  }
}
