"""Every call of Confluent's Python schema-registry client, and its JSON
serializer under each subject name strategy, run against the catalogue's
registry protocol (kafka/registry_python_test.go).

Usage: confluent_calls.py REGISTRY_URL < request.json

The request holds a message of each schema, by name. The answer, on
stdout, is one JSON object: for each call, by name, {"ok": what it
returned} or {"error": [HTTP status, error_code]}. The test judges it;
this script asserts nothing itself."""

import concurrent.futures
import json
import sys

from confluent_kafka.schema_registry import (Schema, SchemaRegistryClient,
                                             record_subject_name_strategy,
                                             topic_record_subject_name_strategy,
                                             topic_subject_name_strategy)
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def main():
    url = sys.argv[1]
    messages = json.load(sys.stdin)
    answer = {}

    def call(name, f):
        try:
            answer[name] = {"ok": f()}
        except SchemaRegistryError as e:
            answer[name] = {"error": [e.http_status_code, e.error_code]}

    client = SchemaRegistryClient({"url": url + "/"})  # as operators write it
    call("get_subjects", client.get_subjects)
    call("get_compatibility", client.get_compatibility)
    call("get_compatibility telemetry-value", lambda: client.get_compatibility("telemetry-value"))
    call("get_compatibility other-value", lambda: client.get_compatibility("other-value"))
    call("get_versions :.:core.device", lambda: client.get_versions(":.:core.device"))
    call("get_latest_version :.:telemetry-value", lambda: client.get_latest_version(":.:telemetry-value").schema_id)
    for subject in ["core.device", "telemetry-value", "core.nothing"]:
        call("get_versions " + subject, lambda: client.get_versions(subject))
        call("get_latest_version " + subject, lambda: client.get_latest_version(subject).schema_id)
        for version in [1, -1, "latest", 0, 2, 2**31, "x"]:
            call("get_version %s %s" % (subject, version),
                 lambda: client.get_version(subject, version).schema_id)
    for schema_id in [1, 2, 3, 4, 5, 0]:
        call("get_schema %d" % schema_id, lambda: client.get_schema(schema_id).schema_type)

    device = client.get_schema(2).schema_str
    vehicle = client.get_schema(3).schema_str
    parsed = json.loads(device)
    spellings = {
        "as published": device,
        "compact": json.dumps(parsed, separators=(",", ":")),
        "members sorted": json.dumps(parsed, sort_keys=True),
        "indented by 4": json.dumps(parsed, indent=4),
    }
    for spelling, text in spellings.items():
        for subject in ["core.device", "telemetry-value"]:
            schema = Schema(text, "JSON")
            call("lookup_schema %s %s" % (subject, spelling),
                 lambda: client.lookup_schema(subject, schema).schema_id)
            # A fresh client each time: the client caches registrations.
            fresh = SchemaRegistryClient({"url": url})
            call("register_schema %s %s" % (subject, spelling),
                 lambda: fresh.register_schema(subject, schema))
            call("test_compatibility %s %s" % (subject, spelling),
                 lambda: client.test_compatibility(subject, schema))
    call("register_schema core.device vehicle", lambda: client.register_schema("core.device", Schema(vehicle, "JSON")))
    call("register_schema other-value device", lambda: client.register_schema("other-value", Schema(device, "JSON")))
    call("register_schema core.device avro", lambda: client.register_schema("core.device", Schema('"string"', "AVRO")))
    call("lookup_schema core.device vehicle", lambda: client.lookup_schema("core.device", Schema(vehicle, "JSON")).schema_id)
    call("test_compatibility core.device vehicle", lambda: client.test_compatibility("core.device", Schema(vehicle, "JSON")))
    call("test_compatibility core.device not an object",
         lambda: client.test_compatibility("core.device", Schema("[]", "JSON")))
    call("lookup_schema :.:core.device", lambda: client.lookup_schema(":.:core.device", Schema(device, "JSON")).schema_id)
    call("set_compatibility", lambda: client.set_compatibility("core.device", "NONE"))

    # A burst of checks from many clients at once, as parallel CI jobs
    # send: every one is answered, none turned away busy.
    def burst():
        def check(_):
            return SchemaRegistryClient({"url": url}).test_compatibility("core.device", Schema(device, "JSON"))
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            return sum(pool.map(check, range(128)))
    call("test_compatibility 128 at once", burst)
    call("set_compatibility as it is", lambda: client.set_compatibility("core.device", "FULL_TRANSITIVE"))
    call("set_compatibility of the registry as it is", lambda: client.set_compatibility(level="FULL_TRANSITIVE"))
    call("delete_subject", lambda: client.delete_subject("core.device"))
    call("delete_version", lambda: client.delete_version("core.device", 1))

    # The serializer under each strategy, registering or looking up, and
    # their deserializer reading back what it framed.
    strategies = {"topic": topic_subject_name_strategy, "record": record_subject_name_strategy,
                  "topic_record": topic_record_subject_name_strategy}
    ctx = SerializationContext("telemetry", MessageField.VALUE)
    for schema_id in [1, 2, 3, 4]:
        text = client.get_schema(schema_id).schema_str
        message = messages[json.loads(text)["title"]]
        for strategy, func in strategies.items():
            for auto in [True, False]:
                def round_trip():
                    serialize = JSONSerializer(text, SchemaRegistryClient({"url": url}),
                                               conf={"auto.register.schemas": auto, "subject.name.strategy": func})
                    value = serialize(message, ctx)
                    return [int.from_bytes(value[1:5], "big"), JSONDeserializer(text)(value, ctx) == message]
                call("serialize %d %s auto=%s" % (schema_id, strategy, auto), round_trip)

    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
