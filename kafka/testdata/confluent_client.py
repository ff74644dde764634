"""Confluent's Python schema-registry client and JSON serializer, run
against the catalogue's registry protocol (kafka/registry_python_test.go).

Usage: confluent_client.py REGISTRY_URL < request.json

The request names a message to serialize and a framed value to
deserialize; the answer, on stdout, is one JSON object with what the
client saw. The test judges it; this script asserts nothing itself."""

import base64
import json
import sys

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def main():
    url = sys.argv[1]
    request = json.load(sys.stdin)
    client = SchemaRegistryClient({"url": url})
    ctx = SerializationContext(request["topic"], MessageField.VALUE)
    answer = {}

    latest = client.get_latest_version(request["subject"])
    answer["latest_id"] = latest.schema_id
    answer["latest_version"] = latest.version
    answer["latest_schema"] = latest.schema.schema_str
    answer["subjects"] = client.get_subjects()

    # Serialize: the serializer registers the schema under the subject
    # the strategy names (the topic's, mapped by msgcheck serve -subject),
    # which returns its id, validates the message and frames it.
    serializer = JSONSerializer(latest.schema.schema_str, client)
    value = serializer(request["message"], ctx)
    answer["serialized"] = base64.b64encode(value).decode()

    # Deserialize what the catalogue framed, by the schema its id names.
    framed = base64.b64decode(request["framed"])
    writer = client.get_schema(int.from_bytes(framed[1:5], "big"))
    answer["deserialized"] = JSONDeserializer(writer.schema_str)(framed, ctx)

    # A schema the catalogue does not hold is refused, read-only.
    try:
        client.register_schema(request["subject"], Schema(request["other_schema"], "JSON"))
        answer["register_other"] = "accepted"
    except SchemaRegistryError as e:
        answer["register_other"] = e.error_code

    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
