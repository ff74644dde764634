"""kafka-python (Debian's python3-kafka), the pure-Python Kafka client,
as a producer and a consumer of a Kafka cluster: run by
kafka/jsclients_test.go against franz-go's kfake, with /usr/bin/python3.

Usage: python3 kafka_python.py produce|consume BROKERS < request.json

BROKERS are host:port, comma-separated. Keys, values and header values
are base64 in the request and the answer, null for null; headers are
[{"key": ..., "value": ...}] in order.

produce: the request is {"topic": ..., "sends": [{"name", "codec" (none,
gzip, snappy, lz4, zstd), "config" (more of KafkaProducer's), "records":
[...]}]}; each send is one producer's, flushed. The answer is, by name,
{"ok": [{"partition", "offset"} of each record]} or {"refused": "Name:
message"}, and "version" and "api_version": the client's, and the broker
version it inferred.

consume: the request is {"topics", "partitions", "sentinel", "config"};
a consumer with no group and config (more of KafkaConsumer's) reads every
partition of the topics from its start until the record whose only
header is named sentinel. The answer is {"records": those read before
the sentinels, each with its topic, partition and offset; "config": the
consumer refused, or "ok"}.

The script asserts nothing itself: the test judges its answer.
"""

import base64
import json
import sys
import time

import kafka
from kafka import KafkaConsumer, KafkaProducer, TopicPartition


def raw(s):
    return None if s is None else base64.b64decode(s)


def encoded(b):
    return None if b is None else base64.b64encode(b).decode()


def refused(e):
    return {"refused": "%s: %s" % (type(e).__name__, e)}


def produce(brokers, request):
    answer = {"version": kafka.__version__}
    for send in request["sends"]:
        name = send["name"]
        codec = None if send["codec"] == "none" else send["codec"]
        try:
            p = KafkaProducer(bootstrap_servers=brokers, client_id="kafka-python-test", acks="all",
                              compression_type=codec, linger_ms=20, **send.get("config") or {})
        except Exception as e:  # the client refuses its config
            answer[name] = refused(e)
            continue
        answer["api_version"] = ".".join(str(n) for n in p.config["api_version"])
        try:
            futures = [p.send(request["topic"], key=raw(r["key"]), value=raw(r["value"]),
                              headers=[(h["key"], raw(h["value"])) for h in r["headers"] or []])
                       for r in send["records"]]
            p.flush()
            answer[name] = {"ok": [{"partition": m.partition, "offset": m.offset}
                                   for m in (f.get(timeout=30) for f in futures)]}
        except Exception as e:
            answer[name] = refused(e)
        finally:
            p.close()
    return answer


def consume(brokers, request):
    answer = {"config": "ok", "records": []}
    config = dict(bootstrap_servers=brokers, client_id="kafka-python-test", group_id=None,
                  enable_auto_commit=False, auto_offset_reset="earliest", fetch_max_wait_ms=100)
    try:
        c = KafkaConsumer(**config, **request.get("config") or {})
    except Exception as e:  # the client refuses the config: read without it
        answer["config"] = refused(e)["refused"]
        c = KafkaConsumer(**config)
    partitions = [TopicPartition(t, p) for t in request["topics"] for p in range(request["partitions"])]
    c.assign(partitions)
    c.seek_to_beginning()
    left = set(partitions)
    deadline = time.monotonic() + 60
    while left:
        if time.monotonic() > deadline:
            raise SystemExit("not read to their sentinels within a minute: %s" % sorted(left))
        for tp, records in c.poll(timeout_ms=200).items():
            for r in records:
                if tp not in left:
                    break
                headers = [{"key": k, "value": encoded(v)} for k, v in r.headers]
                if len(headers) == 1 and headers[0]["key"] == request["sentinel"]:
                    left.discard(tp)
                    c.pause(tp)
                    break
                answer["records"].append({"topic": r.topic, "partition": r.partition, "offset": r.offset,
                                          "key": encoded(r.key), "value": encoded(r.value), "headers": headers})
    c.close()
    return answer


def main():
    mode, brokers = sys.argv[1], sys.argv[2].split(",")
    request = json.load(sys.stdin)
    answer = {"produce": produce, "consume": consume}[mode](brokers, request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
