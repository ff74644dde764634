// kafkajs, the pure-JavaScript Kafka client, as a producer and a
// consumer of a Kafka cluster: run by kafka/jsclients_test.go against
// franz-go's kfake.
//
// Usage: node kafkajs_client.js produce|consume BROKERS < request.json
//
// BROKERS are host:port, comma-separated. Keys, values and header values
// are base64 in the request and the answer, null for null; headers are
// [{"key": ..., "value": ...}] in order.
//
// produce: the request is {"topic": ..., "sends": [{"name", "codec"
// (none, gzip, snappy, lz4, zstd), "idempotent", "transaction" (commit,
// abort or none), "records": [...]}]}; each send is one producer's one
// send call, in a transaction it commits or aborts if told. The answer
// is, by name, {"ok": what send returned} or {"refused": "Name: message"}.
//
// consume: the request is {"group", "topics", "partitions", "sentinel"};
// a consumer of the group, readUncommitted false, reads every partition
// of the topics from its start until the record whose only header is
// named sentinel. The answer is {"records": those read before the
// sentinels, each with its topic, partition and offset; "crashed": the
// error that stopped the consumer, if one did}.
//
// The script asserts nothing itself: the test judges its answer. kafkajs
// logs to stderr.

'use strict';

const { Kafka, CompressionTypes, Partitioners, logLevel } = require('kafkajs');

const [mode, brokers] = process.argv.slice(2);

const kafka = new Kafka({
  clientId: 'kafkajs-test',
  brokers: brokers.split(','),
  logLevel: logLevel.WARN,
  logCreator: () => ({ namespace, label, log }) => {
    process.stderr.write(`kafkajs ${label} ${namespace}: ${JSON.stringify(log)}\n`);
  },
  retry: { initialRetryTime: 50, retries: 5 },
});

const codecs = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

const bytes = (s) => (s === null || s === undefined ? null : Buffer.from(s, 'base64'));
const base64 = (b) => (b === null || b === undefined ? null : b.toString('base64'));

// message returns r as kafkajs's message: its headers an object, a key
// given twice an array of its values.
function message(r) {
  const headers = {};
  for (const h of r.headers || []) {
    const v = bytes(h.value);
    headers[h.key] = Object.hasOwn(headers, h.key) ? [].concat(headers[h.key], [v]) : v;
  }
  return { key: bytes(r.key), value: bytes(r.value), headers };
}

async function produce(request) {
  const answer = {};
  for (const s of request.sends) {
    const transactional = s.transaction === 'commit' || s.transaction === 'abort';
    const producer = kafka.producer({
      idempotent: s.idempotent,
      maxInFlightRequests: s.idempotent ? 1 : undefined,
      transactionalId: transactional ? `kafkajs-${s.name}` : undefined,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const record = { topic: request.topic, acks: -1, compression: codecs[s.codec], messages: s.records.map(message) };
    try {
      if (transactional) {
        const txn = await producer.transaction();
        try {
          answer[s.name] = { ok: await txn.send(record) };
        } catch (e) {
          await txn.abort();
          throw e;
        }
        await (s.transaction === 'commit' ? txn.commit() : txn.abort());
      } else {
        answer[s.name] = { ok: await producer.send(record) };
      }
    } catch (e) {
      answer[s.name] = { refused: `${e.name}: ${e.message}` };
    } finally {
      await producer.disconnect();
    }
  }
  return answer;
}

async function consume(request) {
  const consumer = kafka.consumer({ groupId: request.group, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  const left = new Set();
  for (const topic of request.topics) {
    for (let p = 0; p < request.partitions; p++) left.add(`${topic}/${p}`);
  }
  const answer = { records: [] };
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  // An error it does not retry stops the consumer: it is answered.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    answer.crashed = `${payload.error.name}: ${payload.error.message}`;
    done();
  });
  await consumer.subscribe({ topics: request.topics, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message: m }) => {
      if (!left.has(`${topic}/${partition}`)) return;
      const headers = [];
      for (const [key, v] of Object.entries(m.headers || {})) {
        for (const value of Array.isArray(v) ? v : [v]) headers.push({ key, value: base64(value) });
      }
      if (headers.length === 1 && headers[0].key === request.sentinel) {
        left.delete(`${topic}/${partition}`);
        if (left.size === 0) done();
        return;
      }
      answer.records.push({ topic, partition, offset: Number(m.offset), key: base64(m.key), value: base64(m.value), headers });
    },
  });
  const timeout = setTimeout(() => {
    process.stderr.write(`not read to their sentinels within a minute: ${[...left].join(' ')}\n`);
    process.exit(1);
  }, 60000);
  await finished;
  clearTimeout(timeout);
  await consumer.disconnect();
  return answer;
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const request = JSON.parse(Buffer.concat(chunks).toString());
  const answer = await { produce, consume }[mode](request);
  process.stdout.write(JSON.stringify(answer));
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
