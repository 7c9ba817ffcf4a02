// Items of schema version 1 of the `Skill` entity of tests/tests/integration/schema_versions.rs,
// written as a JavaScript client that knows nothing of schema versions writes them (AWS SDK for
// JavaScript v3, `@aws-sdk/lib-dynamodb` with its default marshalling): no `_schema` attribute.
//
//   node schema_v1.cjs write TABLE   writes js1 ("Deno: permissions", 15) and js2 ("Bun", 4),
//                                    category `js`, and prints `"ok"`
'use strict';
const { PutCommand } = require('@aws-sdk/lib-dynamodb');
const { documentClient } = require('./common.cjs');

const ddb = documentClient();
const [mode, TableName] = process.argv.slice(2);

async function main() {
  if (mode !== 'write') throw new Error(`unknown mode ${mode}`);
  for (const [id, title, price] of [['js1', 'Deno: permissions', 15], ['js2', 'Bun', 4]]) {
    await ddb.send(new PutCommand({
      TableName,
      Item: {
        PK: `SKILL#${id}`,
        SK: 'META',
        _type: 'Skill',
        id,
        title,
        category: 'js',
        price,
        GSI1PK: 'CAT#js',
        GSI1SK: id,
      },
    }));
  }
  process.stdout.write('"ok"\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
