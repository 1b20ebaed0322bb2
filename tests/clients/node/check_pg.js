// node-postgres (pg): queries with parameters, prepared (named) queries, type round trips and
// transactions. One line per check for tests/clients/run.sh: `ok node-postgres/CHECK` or
// `FAIL node-postgres/CHECK: error`. Connects with libpq's PG* variables, as pg does itself.
'use strict';

process.env.TZ = 'UTC'; // pg reads DATE values as local midnight
const assert = require('node:assert/strict');
const { Client } = require('pg');

const CHECK_TIMEOUT_MS = 20000;

async function withClient(body) {
  const client = new Client();
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

async function freshTable(client, name, columns) {
  await client.query(`DROP TABLE IF EXISTS ${name}`);
  await client.query(`CREATE TABLE ${name} (${columns})`);
}

const checks = {
  async query_params(client) {
    const res = await client.query("SELECT $1::int + 1 AS n, $2::text || '!' AS s, $3::text IS NULL AS z", [41, 'hi', null]);
    assert.deepEqual(res.rows, [{ n: 42, s: 'hi!', z: true }]);
    assert.deepEqual(res.fields.map((f) => f.name), ['n', 's', 'z']);
  },

  async prepared_named(client) {
    const query = { name: 'pg_double', text: 'SELECT $1::int8 * 2 AS doubled', rowMode: 'array' };
    for (const n of [3, 21]) {
      const res = await client.query({ ...query, values: [n] });
      assert.deepEqual(res.rows, [[String(n * 2)]]); // int8 comes back as a string
    }
  },

  async types_round_trip(client) {
    const moment = new Date(Date.UTC(2024, 2, 10, 8, 30, 15, 250));
    const res = await client.query(
      'SELECT $1::numeric AS n, $2::timestamptz AS ts, $3::date AS d, $4::bool AS b, $5::int4[] AS a, $6::text[] AS t, $7::float8 AS f, $8::json AS j',
      ['-1234.5670', moment, '2024-02-29', true, [1, 2, 3], ['a', 'b c', null], 0.5, { k: [1, 'x'] }],
    );
    assert.deepEqual(res.rows[0], {
      n: '-1234.5670',
      ts: moment,
      d: new Date(Date.UTC(2024, 1, 29)),
      b: true,
      a: [1, 2, 3],
      t: ['a', 'b c', null],
      f: 0.5,
      j: { k: [1, 'x'] },
    });
  },

  async insert_select(client) {
    await freshTable(client, 'node_items', 'id serial PRIMARY KEY, name text NOT NULL, price numeric(8,2)');
    const inserted = await client.query('INSERT INTO node_items (name, price) VALUES ($1, $2), ($3, $4) RETURNING id', ['pen', '1.5', 'ink', null]);
    assert.equal(inserted.rowCount, 2);
    assert.deepEqual(inserted.rows, [{ id: 1 }, { id: 2 }]);
    const res = await client.query('SELECT name, price FROM node_items ORDER BY id');
    assert.deepEqual(res.rows, [{ name: 'pen', price: '1.50' }, { name: 'ink', price: null }]);
  },

  async transactions(client) {
    await freshTable(client, 'node_txn', 'id int');
    await client.query('BEGIN');
    await client.query('INSERT INTO node_txn VALUES (1)');
    await client.query('COMMIT');
    await client.query('BEGIN');
    await client.query('INSERT INTO node_txn VALUES (2)');
    await client.query('ROLLBACK');
    const res = await client.query('SELECT array_agg(id) AS ids FROM node_txn');
    assert.deepEqual(res.rows, [{ ids: [1] }]);
  },

  async server_error(client) {
    await assert.rejects(client.query('SELECT 1 / 0'), (error) => error.code === '22012');
    const res = await client.query('SELECT 2 AS two');
    assert.deepEqual(res.rows, [{ two: 2 }]);
  },
};

function describe(error) {
  let message = String(error && error.message ? error.message : error).split('\n')[0];
  if (error && error.code) message += ` (SQLSTATE ${error.code})`;
  return message.slice(0, 300);
}

async function main() {
  for (const [name, check] of Object.entries(checks)) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    });
    try {
      await Promise.race([withClient(check), timeout]);
      console.log(`ok   node-postgres/${name}`);
    } catch (error) {
      console.log(`FAIL node-postgres/${name}: ${describe(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  process.exit(0); // a client left hanging by a timed-out check must not keep the run waiting
}

main();
