// A table whose keys use `|` as their delimiter (`USER|u1` / `ORDER|2026-05-01|A-1`), written and
// read with the AWS SDK for JavaScript v3 (`@aws-sdk/lib-dynamodb`, default marshalling), as a
// service that never escapes anything writes it. Ids live only inside the keys.
//
//   node pipes.cjs write TABLE     writes users u1 and `team#7` and five orders of u1
//   node pipes.cjs read TABLE ID   prints, as [type, value], the profile of user ID and its
//                                  orders (`begins_with(SK, 'ORDER|')`), keys included
//
// The data set (tests/tests/integration/interop.rs builds the same values):
// * users: `USER|u1` / `PROFILE` (name `Ann`, email `ann@example.com`) and `USER|team#7` /
//   `PROFILE` (name `Team 7`, email `team7@example.com`): a `#` is plain text in these keys;
// * orders of u1, `USER|u1` / `ORDER|<day>|<id>` with `total` and `status`:
//   2026-05-01 A-1 12.5 paid, 2026-05-01 A-10 3 paid, 2026-05-02 A-2 7.25 shipped,
//   2026-05-010 C-1 1 paid (a day that only starts like 2026-05-01), 2026-06-01 B-1 99.99 shipped.
'use strict';
const { PutCommand, GetCommand, QueryCommand } = require('@aws-sdk/lib-dynamodb');
const { documentClient, print } = require('./common.cjs');

const ddb = documentClient();
const [mode, TableName, id] = process.argv.slice(2);

const USERS = [
  ['u1', 'Ann', 'ann@example.com'],
  ['team#7', 'Team 7', 'team7@example.com'],
];
const ORDERS = [
  ['2026-05-01', 'A-1', 12.5, 'paid'],
  ['2026-05-01', 'A-10', 3, 'paid'],
  ['2026-05-02', 'A-2', 7.25, 'shipped'],
  ['2026-05-010', 'C-1', 1, 'paid'],
  ['2026-06-01', 'B-1', 99.99, 'shipped'],
];

async function write() {
  for (const [userId, name, email] of USERS) {
    await ddb.send(new PutCommand({ TableName, Item: { PK: `USER|${userId}`, SK: 'PROFILE', name, email } }));
  }
  for (const [day, orderId, total, status] of ORDERS) {
    await ddb.send(new PutCommand({
      TableName,
      Item: { PK: 'USER|u1', SK: `ORDER|${day}|${orderId}`, total, status },
    }));
  }
}

async function read() {
  const { Item } = await ddb.send(new GetCommand({ TableName, Key: { PK: `USER|${id}`, SK: 'PROFILE' } }));
  const { Items } = await ddb.send(new QueryCommand({
    TableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': `USER|${id}`, ':sk': 'ORDER|' },
  }));
  print({ profile: Item, orders: Items });
}

(mode === 'write' ? write() : read()).catch((e) => {
  console.error(e);
  process.exit(1);
});
