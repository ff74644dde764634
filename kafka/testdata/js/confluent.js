// Confluent's JavaScript schema-registry client, @confluentinc/schemaregistry
// (its SchemaRegistryClient and its JSON serde), run against the
// catalogue's registry protocol by kafka/registry_js_test.go.
//
// Usage: node confluent.js REGISTRY_URL < request.json
//
// The request holds, for each schema by name, the topic whose -value
// subject the registry maps to it, a valid message, an invalid one, and
// a record this module's producer framed (its value in base64 and its
// headers). The answer, on stdout, is one JSON object: for each call, by
// name, {"ok": what it returned}, {"error": [HTTP status, error_code]}
// for an error of the registry, or {"refused": "Class: message"} for
// one the client raised itself. The test judges it; this script asserts
// nothing itself.

'use strict';

const {
  SchemaRegistryClient, JsonSerializer, JsonDeserializer, SerdeType, RestError,
} = require('@confluentinc/schemaregistry');
const { fullFormats } = require('ajv-formats/dist/formats');

const run = require('./calls');

run(async (url, request, call) => {
  const newClient = () => new SchemaRegistryClient({ baseURLs: [url] });
  const client = newClient();

  // The serde passes its configuration on to ajv, its validator, as
  // options: ajv knows no format unless it is given them, and in its
  // strict mode, the default, refuses to compile a schema with a format
  // it does not know. These are ajv-formats' own.
  const validate = { validate: true, formats: fullFormats };
  const serialize = async (conf, topic, message) => {
    const value = await new JsonSerializer(newClient(), SerdeType.VALUE, conf).serialize(topic, message);
    return value.toString('base64');
  };

  for (const [name, r] of Object.entries(request)) {
    const id = (await client.getLatestSchemaMetadata(`${r.topic}-value`)).id;
    // Each configuration a producer can use against a read-only
    // registry, with the subject named after the topic (by default, the
    // subject the registry associates with the topic, else the topic's).
    await call(`serialize ${name} useLatestVersion`, () => serialize({ useLatestVersion: true, ...validate }, r.topic, r.message));
    await call(`serialize ${name} useSchemaId`, () => serialize({ useSchemaId: id, ...validate }, r.topic, r.message));
    await call(`serialize ${name} useLatestVersion TOPIC`, () => serialize({ useLatestVersion: true, subjectNameStrategyType: 'TOPIC', ...validate }, r.topic, r.message));
    // The default strategy, told not to fall back: the topic's subject
    // only by the registry's association.
    await call(`serialize ${name} useLatestVersion ASSOCIATED only`, () => serialize({
      useLatestVersion: true, subjectNameStrategyConfig: { 'subject.name.strategy.fallback.type': 'NONE' }, ...validate,
    }, r.topic, r.message));
    // The subject RecordNameStrategy names, the schema's name, given as
    // a function; and the client's own RECORD strategy, which names the
    // subject from the schema's title only once it has the schema, and
    // so names none ('') when it is to fetch it.
    await call(`serialize ${name} useLatestVersion schema name`, () => serialize({ useLatestVersion: true, subjectNameStrategy: () => name, ...validate }, r.topic, r.message));
    await call(`serialize ${name} useLatestVersion RECORD`, () => serialize({ useLatestVersion: true, subjectNameStrategyType: 'RECORD', ...validate }, r.topic, r.message));
    await call(`serialize ${name} useSchemaId TOPIC_RECORD`, () => serialize({ useSchemaId: id, subjectNameStrategyType: 'TOPIC_RECORD', ...validate }, r.topic, r.message));
    // Without useLatestVersion or useSchemaId the serializer derives a
    // schema from the message, which the catalogue does not hold.
    await call(`serialize ${name} autoRegisterSchemas`, () => serialize({ autoRegisterSchemas: true, ...validate }, r.topic, r.message));
    await call(`serialize ${name} derived`, () => serialize({ ...validate }, r.topic, r.message));
    // Told both, it registers the schema it has not fetched: none.
    await call(`serialize ${name} autoRegisterSchemas useLatestVersion`, () => serialize({ autoRegisterSchemas: true, useLatestVersion: true, ...validate }, r.topic, r.message));
    // Validation on: the invalid message is refused before any byte is
    // written; without formats, ajv refuses the schema.
    await call(`serialize ${name} invalid`, () => serialize({ useLatestVersion: true, ...validate }, r.topic, r.invalid));
    await call(`serialize ${name} without formats`, () => serialize({ useLatestVersion: true, validate: true }, r.topic, r.message));
    if (r.beyond) {
      await call(`serialize ${name} beyond the schema`, () => serialize({ useLatestVersion: true, ...validate }, r.topic, r.beyond));
    }
    await call(`serialize ${name} formats not validated`, () => serialize({ useLatestVersion: true, validate: true, validateFormats: false }, r.topic, r.message));

    // What this module's producer framed, read by their deserializer,
    // validating, with the record's headers as a Kafka client gives them.
    const framed = Buffer.from(r.framed, 'base64');
    const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, [Buffer.from(v)]]));
    for (const strategy of [undefined, 'TOPIC', 'RECORD']) {
      await call(`deserialize ${name} ${strategy ?? 'ASSOCIATED'}`, () => new JsonDeserializer(newClient(), SerdeType.VALUE, { subjectNameStrategyType: strategy, ...validate })
        .deserialize(r.topic, framed, headers));
    }
    // Told the latest version, it reads it as the reader's schema, and
    // looks the writer's up in the subject for its version.
    await call(`deserialize ${name} TOPIC useLatestVersion`, () => new JsonDeserializer(newClient(), SerdeType.VALUE, { subjectNameStrategyType: 'TOPIC', useLatestVersion: true, ...validate })
      .deserialize(r.topic, framed, headers));
  }

  // The client's admin calls, on the first schema.
  const [name, r] = Object.entries(request)[0];
  const subject = `${r.topic}-value`;
  const latest = await client.getLatestSchemaMetadata(name);
  const schema = { schemaType: 'JSON', schema: latest.schema };
  const other = Object.keys(request).find((n) => n !== name);
  const otherSchema = { schemaType: 'JSON', schema: (await client.getLatestSchemaMetadata(other)).schema };
  await call('getAllSubjects', () => client.getAllSubjects());
  for (const s of [name, subject, `:.:${name}`]) {
    await call(`getAllVersions ${s}`, () => client.getAllVersions(s));
    await call(`getLatestSchemaMetadata ${s}`, async () => (await newClient().getLatestSchemaMetadata(s)).id);
    await call(`getSchemaMetadata ${s} 1`, async () => (await newClient().getSchemaMetadata(s, 1)).id);
    await call(`getSchemaMetadata ${s} 1 deleted`, async () => (await newClient().getSchemaMetadata(s, 1, true)).id);
    await call(`getId ${s}`, () => newClient().getId(s, schema));
    await call(`getId ${s} normalize`, () => newClient().getId(s, schema, true));
    await call(`getVersion ${s}`, () => newClient().getVersion(s, schema));
    await call(`register ${s}`, () => newClient().register(s, schema));
    await call(`getBySubjectAndId ${s}`, async () => (await newClient().getBySubjectAndId(s, latest.id)).schema === schema.schema);
    await call(`testSubjectCompatibility ${s}`, () => client.testSubjectCompatibility(s, schema));
    await call(`testCompatibility ${s} 1`, () => client.testCompatibility(s, 1, schema));
    await call(`getCompatibility ${s}`, () => client.getCompatibility(s));
    await call(`getConfig ${s}`, () => client.getConfig(s));
  }
  await call('getSchemaMetadata nothing 1', () => newClient().getSchemaMetadata('core.nothing', 1));
  await call(`getSchemaMetadata ${name} 2`, () => newClient().getSchemaMetadata(name, 2));
  await call(`getLatestWithMetadata ${name}`, () => client.getLatestWithMetadata(name, { owner: 'fleet' }));
  await call(`register ${name} other`, () => newClient().register(name, otherSchema));
  await call('register other-value', () => newClient().register('other-value', schema));
  await call(`getId ${name} other`, () => newClient().getId(name, otherSchema));
  await call(`testCompatibility ${name} other`, () => client.testCompatibility(name, 1, otherSchema));
  await call('getBySubjectAndId unknown id', () => newClient().getBySubjectAndId('', 99));
  await call('getByGuid', () => client.getByGuid('3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'));
  await call('getDefaultCompatibility', () => client.getDefaultCompatibility());
  await call('getDefaultConfig', () => client.getDefaultConfig());
  await call('getCompatibility other-value', () => client.getCompatibility('other-value'));
  await call('updateCompatibility as it is', () => client.updateCompatibility(name, 'FULL_TRANSITIVE'));
  await call('updateCompatibility NONE', () => client.updateCompatibility(name, 'NONE'));
  await call('updateDefaultCompatibility as it is', () => client.updateDefaultCompatibility('FULL_TRANSITIVE'));
  await call('updateConfig as it is', () => client.updateConfig(name, { compatibility: 'FULL_TRANSITIVE' }));
  await call('updateConfig normalize', () => client.updateConfig(name, { normalize: true }));
  await call('updateDefaultConfig as it is', () => client.updateDefaultConfig({ compatibility: 'FULL_TRANSITIVE' }));
  await call('deleteSubject', () => client.deleteSubject(name));
  await call('deleteSubject permanent', () => client.deleteSubject(name, true));
  await call('deleteSubjectVersion', () => client.deleteSubjectVersion(name, 1));
  await call('getAssociationsByResourceName', () => client.getAssociationsByResourceName(r.topic, '-', 'topic', ['value'], null, 0, -1));
  await call('getAssociationsByResourceName other', () => client.getAssociationsByResourceName('other', '-', 'topic', ['value'], null, 0, -1));
  await call('createAssociation', () => client.createAssociation({
    resourceName: 'other', resourceNamespace: '-', resourceType: 'topic', associations: [{ subject: name, associationType: 'value' }],
  }));
}, (e) => (e instanceof RestError
  ? { error: [e.status, e.errorCode] }
  : { refused: `${e.constructor.name}: ${e.message}` }));
