// What confluent.js and kafkajs.js share: the request read from stdin,
// each call's outcome recorded under its name, and the answer written to
// stdout as one JSON object.
//
// run(body, outcome) calls body(url, request, call), where url is the
// registry's (the first argument) and call(name, f) records
// {"ok": await f()}, or outcome(e) for the error f throws.

'use strict';

module.exports = function run(body, outcome) {
  const url = process.argv[2];
  const request = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const answer = {};
  const call = async (name, f) => {
    try {
      answer[name] = { ok: await f() };
    } catch (e) {
      answer[name] = outcome(e);
    }
  };
  body(url, request, call).then(() => process.stdout.write(JSON.stringify(answer)), (e) => {
    console.error(e);
    process.exit(1);
  });
};
