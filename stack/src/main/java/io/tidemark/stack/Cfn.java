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
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Ref", name);
    return n;
  }

  static ObjectNode getAtt(String resource, String attribute) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::GetAtt").add(resource).add(attribute);
    return n;
  }

  static ObjectNode sub(String text) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("Fn::Sub", text);
    return n;
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
    ObjectNode n = MAPPER.createObjectNode();
    ArrayNode args = n.putArray("Fn::Join");
    args.add("");
    ArrayNode list = args.addArray();
    parts.forEach(list::add);
    return n;
  }

  /** {"Fn::Select": [index, {"Fn::Split": [separator, {"Ref": parameter}]}]} */
  static ObjectNode selectSplit(int index, String separator, String parameter) {
    ObjectNode split = MAPPER.createObjectNode();
    split.putArray("Fn::Split").add(separator).add(ref(parameter));
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::Select").add(index).add(split);
    return n;
  }

  static ObjectNode equalsNode(JsonNode a, JsonNode b) {
    ObjectNode n = MAPPER.createObjectNode();
    n.putArray("Fn::Equals").add(a).add(b);
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
