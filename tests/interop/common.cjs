// What the interop scripts share: a DynamoDB client of the DynamoDB Local database the Rust
// tests use (same endpoint, access key id and region: DynamoDB Local keeps one database per
// access key id and region), and the typed description of what a reader sees.
'use strict';
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient } = require('@aws-sdk/lib-dynamodb');

function client() {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set');
  return new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION || 'us-east-1',
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'dynamoentitylocal',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'dynamoentitylocal',
    },
  });
}

// The document client with lib-dynamodb's default marshalling options.
function documentClient() {
  return DynamoDBDocumentClient.from(client());
}

// A value as a JavaScript reader sees it: [type, value], with the keys of objects sorted.
function describe(v) {
  if (v === null) return ['null', null];
  if (v instanceof Set) return ['Set', [...v].map(describe)];
  if (Array.isArray(v)) return ['Array', v.map(describe)];
  if (v instanceof Uint8Array) return ['Uint8Array', [...v]];
  if (typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = describe(v[k]);
    return ['Object', out];
  }
  return [typeof v, v];
}

function print(value) {
  process.stdout.write(JSON.stringify(describe(value)) + '\n');
}

module.exports = { client, documentClient, describe, print };
