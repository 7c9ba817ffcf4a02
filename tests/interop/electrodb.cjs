// An ElectroDB 3 writer and reader with its default key format: service `app`, entities `user`
// and `order` (version 1), keys `$app#userid_<userId>` / `$user_1`,
// `$order_1#orderid_<orderId>#line_<line>` and the GSI `byEmail` on GSI1 (`$app#email_<email>` /
// `$user_1#userid_<userId>`), lowercased and never escaped; the entity attributes `__edb_e__` and
// `__edb_v__`.
//
//   node electrodb.cjs write TABLE      puts users Ann and bob, and Ann's order O-1 lines 2 and
//                                       10 and order O-2 line 1
//   node electrodb.cjs read TABLE ID    prints what ElectroDB's get of user ID, its query of the
//                                       user's orders and its GSI query by the user's email return
'use strict';
const { Entity } = require('electrodb');
const { documentClient, print } = require('./common.cjs');

const [command, table, id] = process.argv.slice(2);
const client = documentClient();

const User = new Entity(
  {
    model: { entity: 'user', version: '1', service: 'app' },
    attributes: {
      userId: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      visits: { type: 'number' },
    },
    indexes: {
      primary: { pk: { field: 'PK', composite: ['userId'] }, sk: { field: 'SK', composite: [] } },
      byEmail: {
        index: 'GSI1',
        pk: { field: 'GSI1PK', composite: ['email'] },
        sk: { field: 'GSI1SK', composite: ['userId'] },
      },
    },
  },
  { table, client },
);

const Order = new Entity(
  {
    model: { entity: 'order', version: '1', service: 'app' },
    attributes: {
      userId: { type: 'string' },
      orderId: { type: 'string' },
      line: { type: 'number' },
      total: { type: 'number' },
    },
    indexes: {
      primary: { pk: { field: 'PK', composite: ['userId'] }, sk: { field: 'SK', composite: ['orderId', 'line'] } },
    },
  },
  { table, client },
);

async function write() {
  await User.put({ userId: 'Ann', name: 'Ann Lee', email: 'Ann@Example.com', visits: 3 }).go();
  await User.put({ userId: 'bob', name: 'Bob Ray', email: 'bob@example.com', visits: 0 }).go();
  await Order.put({ userId: 'Ann', orderId: 'O-1', line: 2, total: 11.99 }).go();
  await Order.put({ userId: 'Ann', orderId: 'O-1', line: 10, total: 5 }).go();
  await Order.put({ userId: 'Ann', orderId: 'O-2', line: 1, total: 0.5 }).go();
}

async function read() {
  const user = await User.get({ userId: id }).go();
  const orders = await Order.query.primary({ userId: id }).go();
  const email = user.data ? user.data.email : '';
  const byEmail = await User.query.byEmail({ email }).go();
  print({ user: user.data, orders: orders.data, byEmail: byEmail.data });
}

(command === 'write' ? write() : read()).catch((e) => {
  console.error(e);
  process.exit(1);
});
