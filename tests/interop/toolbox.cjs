// A DynamoDB Toolbox v2 writer with its defaults: entity attribute `_et`, timestamps `_ct` and
// `_md` (ISO 8601 strings), keys computed from the item.
//
//   node toolbox.cjs write TABLE   puts users u0..u2 (name `User i`, age 30 + i, tags {a, b<i>})
//                                  and their sessions (sessions 0..i + 1 of user i)
'use strict';
const { Table, Entity, item, string, number, set, PutItemCommand } = require('dynamodb-toolbox');
const { documentClient } = require('./common.cjs');

const [, TableName] = process.argv.slice(2);
const table = new Table({
  name: TableName,
  partitionKey: { name: 'PK', type: 'string' },
  sortKey: { name: 'SK', type: 'string' },
  documentClient: documentClient(),
});

const User = new Entity({
  name: 'USER',
  table,
  schema: item({ userId: string().key(), name: string(), age: number(), tags: set(string()) }),
  computeKey: ({ userId }) => ({ PK: `USER#${userId}`, SK: 'PROFILE' }),
});

const Session = new Entity({
  name: 'SESSION',
  table,
  schema: item({ userId: string().key(), sessionId: string().key(), device: string() }),
  computeKey: ({ userId, sessionId }) => ({ PK: `USER#${userId}`, SK: `SESSION#${sessionId}` }),
});

async function write() {
  for (let i = 0; i < 3; i++) {
    const userId = `u${i}`;
    await User.build(PutItemCommand).item({ userId, name: `User ${i}`, age: 30 + i, tags: new Set(['a', `b${i}`]) }).send();
    for (let k = 0; k <= i; k++) {
      await Session.build(PutItemCommand).item({ userId, sessionId: `s${k}`, device: k % 2 ? 'phone' : 'laptop' }).send();
    }
  }
}

write().catch((e) => {
  console.error(e);
  process.exit(1);
});
