// The design of the seed write-up 004 (single-table design, access patterns and GSI strategies)
// written and read exactly as the write-up does, with the AWS SDK for JavaScript v3
// (`@aws-sdk/lib-dynamodb`, default marshalling).
//
//   node seed004.cjs write TABLE   writes the data set below (194 items)
//   node seed004.cjs read TABLE ID prints, as [type, value], what getUser(ID),
//                                  getUserOrders(ID) and getUserByEmail(email of ID) return
//
// The data set (tests/tests/integration/interop.rs builds the same values):
// * users user0..user4: name `User i`, email `useri@example.com`, createdAt
//   `new Date(Date.UTC(2026, 0, i + 1, 12)).toISOString()`, created with createUser, then
//   orderCount counted up by one transaction per order (the write-up's TransactWriteCommand);
// * orders: 45 for user0, 12 for each other user; order j of user i has id `o<i>x<j>`, day
//   `2026-05-<(j % 28) + 1, two digits>`, total `j + 1.99` (a JavaScript number), status
//   `pending`, `shipped`, `delivered` by j % 3; stored as `ORDER#<id>` / `DETAILS` and as the
//   user's order item `USER#<uid>` / `ORDER#<day>#<id>`;
// * products prod0..prod2: name `Product k`, price `79.99 + k`, no entityType (as written).
'use strict';
const { PutCommand, GetCommand, QueryCommand, TransactWriteCommand } = require('@aws-sdk/lib-dynamodb');
const { documentClient, print } = require('./common.cjs');

const ddb = documentClient();
const [mode, TableName, id] = process.argv.slice(2);
const STATUSES = ['pending', 'shipped', 'delivered'];
const pad2 = (n) => String(n).padStart(2, '0');

async function createUser(userId, email, name, createdAt) {
  await ddb.send(new PutCommand({
    TableName,
    Item: {
      PK: `USER#${userId}`,
      SK: 'PROFILE',
      GSI1PK: `EMAIL#${email}`,
      GSI1SK: `USER#${userId}`,
      name,
      email,
      createdAt,
      // The write-up's transaction adds to orderCount, which must exist first.
      orderCount: 0,
      entityType: 'USER',
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  }));
}

async function createOrder(userId, orderId, day, orderData) {
  await ddb.send(new TransactWriteCommand({
    TransactItems: [
      {
        Put: {
          TableName,
          Item: { PK: `ORDER#${orderId}`, SK: 'DETAILS', ...orderData },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName,
          Key: { PK: `USER#${userId}`, SK: 'PROFILE' },
          UpdateExpression: 'SET orderCount = orderCount + :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ],
  }));
  await ddb.send(new PutCommand({
    TableName,
    Item: {
      PK: `USER#${userId}`,
      SK: `ORDER#${day}#${orderId}`,
      status: orderData.status,
      total: orderData.total,
      entityType: 'ORDER',
    },
  }));
}

async function write() {
  for (let i = 0; i < 5; i++) {
    const userId = `user${i}`;
    await createUser(userId, `${userId}@example.com`, `User ${i}`, new Date(Date.UTC(2026, 0, i + 1, 12)).toISOString());
    const orders = i === 0 ? 45 : 12;
    for (let j = 0; j < orders; j++) {
      const orderData = { userId, total: j + 1.99, status: STATUSES[j % 3], entityType: 'ORDER' };
      await createOrder(userId, `o${i}x${j}`, `2026-05-${pad2((j % 28) + 1)}`, orderData);
    }
  }
  for (let k = 0; k < 3; k++) {
    await ddb.send(new PutCommand({
      TableName,
      Item: { PK: `PRODUCT#prod${k}`, SK: 'DETAILS', name: `Product ${k}`, price: 79.99 + k },
    }));
  }
}

async function getUser(userId) {
  const { Item } = await ddb.send(new GetCommand({ TableName, Key: { PK: `USER#${userId}`, SK: 'PROFILE' } }));
  return Item;
}

async function getUserOrders(userId, lastKey) {
  const { Items, LastEvaluatedKey } = await ddb.send(new QueryCommand({
    TableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'ORDER#' },
    ScanIndexForward: false,
    Limit: 20,
    ExclusiveStartKey: lastKey,
  }));
  return { orders: Items, nextKey: LastEvaluatedKey };
}

async function getUserByEmail(email) {
  const { Items } = await ddb.send(new QueryCommand({
    TableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :email',
    ExpressionAttributeValues: { ':email': `EMAIL#${email}` },
  }));
  return Items?.[0];
}

async function read() {
  const user = await getUser(id);
  const { orders, nextKey } = await getUserOrders(id);
  const byEmail = await getUserByEmail(user.email);
  print({ user, orders, nextKey: nextKey ?? null, byEmail });
}

(mode === 'write' ? write() : read()).catch((e) => {
  console.error(e);
  process.exit(1);
});
