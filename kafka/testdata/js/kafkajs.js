// The community's JavaScript schema-registry client,
// @kafkajs/confluent-schema-registry (SchemaRegistry, SchemaType.JSON),
// run against the catalogue's registry protocol by
// kafka/registry_js_test.go.
//
// Usage: node kafkajs.js REGISTRY_URL < request.json
//
// The request is confluent.js's. The answer, on stdout, is one JSON
// object: for each call, by name, {"ok": what it returned},
// {"error": [HTTP status, message]} for an error of the registry (this
// client keeps the status and the message, not the error_code), or
// {"refused": "Class: message"} for one the client raised itself. The
// test judges it; this script asserts nothing itself.

'use strict';

const { SchemaRegistry, SchemaType, COMPATIBILITY } = require('@kafkajs/confluent-schema-registry');
const Ajv2020 = require('ajv/dist/2020').default;
const draft07 = require('ajv/dist/refs/json-schema-draft-07.json');
const addFormats = require('ajv-formats');

const run = require('./calls');

run(async (url, request, call) => {
  // The client validates every message it encodes or decodes, with ajv.
  // Its own ajv knows neither draft 2020-12 (example.event's) nor any
  // format, so it is given one that knows both, and draft-07 (the other
  // schemas'): one ajv for each SchemaRegistry, since ajv keeps every
  // schema it compiles by its $id and refuses the same $id twice.
  const newRegistry = () => {
    const ajv = new Ajv2020({ allErrors: true });
    ajv.addMetaSchema(draft07);
    addFormats(ajv);
    return new SchemaRegistry({ host: url }, { [SchemaType.JSON]: { ajvInstance: ajv } });
  };
  const registry = newRegistry();

  for (const [name, r] of Object.entries(request)) {
    const subject = `${r.topic}-value`;
    await call(`getLatestSchemaId ${subject}`, () => registry.getLatestSchemaId(subject));
    await call(`getLatestSchemaId ${name}`, () => registry.getLatestSchemaId(name));
    for (const version of [1, 'latest', '1.0', 2]) {
      await call(`getRegistryId ${name} ${version}`, () => registry.getRegistryId(name, version));
    }
    const id = await registry.getLatestSchemaId(subject);
    await call(`encode ${name}`, async () => (await registry.encode(id, r.message)).toString('base64'));
    await call(`encode ${name} invalid`, async () => (await registry.encode(id, r.invalid)).toString('base64'));
    await call(`decode ${name}`, () => registry.decode(Buffer.from(r.framed, 'base64')));
    await call(`encode ${name} without formats`, async () => (await new SchemaRegistry({ host: url }).encode(id, r.message)).toString('base64'));

    // Registering the catalogue's schema gives its id, under the schema's
    // name and under the topic's subject, once the client is told the
    // registry's level (it refuses to register where the level is not
    // the one it is given, BACKWARD unless told).
    const schema = { type: SchemaType.JSON, schema: (await fetch(`${url}/schemas/ids/${id}`).then((b) => b.json())).schema };
    for (const s of [name, subject]) {
      await call(`register ${s}`, async () => (await newRegistry().register(schema, { subject: s, compatibility: COMPATIBILITY.FULL_TRANSITIVE })).id);
      await call(`getRegistryIdBySchema ${s}`, () => newRegistry().getRegistryIdBySchema(s, schema));
    }
    await call(`register ${name} BACKWARD`, async () => (await newRegistry().register(schema, { subject: name })).id);
    await call(`register ${name} under other-value`, async () => (await newRegistry().register(schema, { subject: 'other-value' })).id);
  }

  // Another schema of the catalogue under a subject is not that subject's.
  const [first, second] = Object.keys(request);
  const otherID = await registry.getLatestSchemaId(second);
  const other = { type: SchemaType.JSON, schema: (await fetch(`${url}/schemas/ids/${otherID}`).then((b) => b.json())).schema };
  await call(`register ${first} ${second}`, async () => (await newRegistry().register(other, { subject: first, compatibility: COMPATIBILITY.FULL_TRANSITIVE })).id);
  await call(`getRegistryIdBySchema ${first} ${second}`, () => newRegistry().getRegistryIdBySchema(first, other));
  await call('getLatestSchemaId core.nothing', () => registry.getLatestSchemaId('core.nothing'));
  await call('decode unknown id', () => registry.decode(Buffer.from([0, 0, 0, 0, 99, 123, 125])));
}, (e) => {
  if (e.name === 'ResponseError') {
    return { error: [e.status, e.message] };
  }
  // A message refused by the schema names the places that fail it.
  const paths = e.paths ? ` ${JSON.stringify(e.paths)}` : '';
  return { refused: `${e.name}: ${e.message}${paths}` };
});
