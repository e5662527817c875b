package io.tidemark.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;

/** CloudFormation's intrinsic functions and JSON values, as the stack's builders write them. */
final class Cfn {
  static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Cfn() {}

  static JsonNode text(String s) {
    return MAPPER.getNodeFactory().textNode(s);
  }

  static ObjectNode ref(String name) {
    return MAPPER.createObjectNode().put("Ref", name);
  }

  static ObjectNode getAtt(String resource, String attribute) {
    return function("Fn::GetAtt", MAPPER.createArrayNode().add(resource).add(attribute));
  }

  static ObjectNode sub(String text) {
    return MAPPER.createObjectNode().put("Fn::Sub", text);
  }

  /**
   * Text for inside an {@code Fn::Sub}, taken literally: {@code ${} becomes {@code ${!}, Fn::Sub's
   * escape. Values from a contract (bucket names, prefixes, dataset names) go through it.
   */
  static String literal(String text) {
    return text.replace("${", "${!");
  }

  /** {"Fn::Join": ["", parts]}; a part is text or a function. */
  static ObjectNode join(List<JsonNode> parts) {
    ArrayNode list = MAPPER.createArrayNode();
    parts.forEach(list::add);
    return function("Fn::Join", MAPPER.createArrayNode().add("").add(list));
  }

  /** {"Fn::Select": [index, {"Fn::Split": [separator, {"Ref": parameter}]}]} */
  static ObjectNode selectSplit(int index, String separator, String parameter) {
    ObjectNode split =
        function("Fn::Split", MAPPER.createArrayNode().add(separator).add(ref(parameter)));
    return function("Fn::Select", MAPPER.createArrayNode().add(index).add(split));
  }

  static ObjectNode equalsNode(JsonNode a, JsonNode b) {
    return function("Fn::Equals", MAPPER.createArrayNode().add(a).add(b));
  }

  /** {"name": arguments}: an intrinsic function of a list of arguments. */
  private static ObjectNode function(String name, ArrayNode arguments) {
    ObjectNode n = MAPPER.createObjectNode();
    n.set(name, arguments);
    return n;
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
