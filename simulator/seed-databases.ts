import type { Database } from 'sql.js';
import type { InventoryResourceDocument as InventoryResource, SnapshotDocument as Snapshot } from '../api';
import { Random } from './random';

/**
 * The databases inside relational-database snapshots. Every row is a pure function of (seed, resource, table, row
 * number), and a snapshot's row counts grow with its age relative to the resource, so a later snapshot of a resource
 * holds every row of an earlier one plus some more. Nothing here is stored: a database is rebuilt on demand.
 */

export const DATABASE_TABLES = ['customers', 'orders', 'order_items', 'events'] as const;
export type DatabaseTable = (typeof DATABASE_TABLES)[number];
/** The only resource type whose snapshots hold a database. */
export const RELATIONAL_TYPE = 'PA_RELATIONAL_DB';

/**
 * Damage a test asks for (`PUT /_simulator/corruption/{resourceId}`): `rows-changed` overwrites a text column of about
 * one row in ten with `ENC:<hex>`, as ransomware would; `rows-missing` deletes about one row in ten.
 */
export const CORRUPTION_KINDS = ['rows-changed', 'rows-missing'] as const;
export type CorruptionKind = (typeof CORRUPTION_KINDS)[number];
export interface TableCorruption {
  kind: CorruptionKind;
  table: DatabaseTable;
}
/** The text column `rows-changed` overwrites in each table. */
export const CORRUPTED_COLUMNS: Record<DatabaseTable, string> = {
  customers: 'email',
  orders: 'status',
  order_items: 'description',
  events: 'payload',
};

const DATABASE_NAMES = ['appdb', 'shopdb', 'billing', 'crm', 'ledger'] as const;
const DAY_MS = 86_400_000;
/** Row timestamps start here, whatever the simulated clock says, so the data never depends on when it is built. */
const DATA_EPOCH = Date.UTC(2023, 0, 1);
const MAX_GROWTH_DAYS = 1000;

/** A 32-bit hash of its parts (FNV-1a, then a murmur3 finaliser): seeds for per-row and per-hour generators. */
export function stableHash(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = `${String(part)}\u0000`;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  return mix32(h);
}

/** murmur3's 32-bit finaliser: spreads every input bit over the whole hash. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The one database of a relational resource; its name is stable for the resource. */
export function databaseNameOf(seed: number, resourceId: string): string {
  return DATABASE_NAMES[stableHash(seed, resourceId, 'database') % DATABASE_NAMES.length] ?? 'appdb';
}

/** Days between the resource's first appearance and the snapshot's point in time, bounded. */
export function growthDays(seed: number, resource: InventoryResource, snapshot: Snapshot): number {
  const anchor = Date.parse(
    resource.createdTime ?? resource.discoveredTime ?? resource.oldestSnapshotTime ?? snapshot.createdTime,
  );
  const taken = Date.parse(snapshot.pointInTime ?? snapshot.createdTime);
  if (!Number.isFinite(anchor) || !Number.isFinite(taken)) return stableHash(seed, snapshot.id) % 60;
  return Math.max(0, Math.min(MAX_GROWTH_DAYS, Math.floor((taken - anchor) / DAY_MS)));
}

export interface TableSizes {
  customers: number;
  orders: number;
  events: number;
}

export function tableSizes(days: number): TableSizes {
  return { customers: 400 + Math.floor(days / 2), orders: 2000 + 3 * days, events: 25_000 + 10 * days };
}

// Values chosen to exercise CSV writers: commas, quotes, newlines, apostrophes and non-ASCII text.
const FIRST = ['Ada', 'José', 'Zoë', 'Łukasz', 'Ægir', 'Mei', 'Noah', 'Amara', 'Søren', 'Ömer', 'Chloé', 'Ravi'];
const LAST = [
  'Lovelace',
  'García',
  "O'Brien",
  'Müller',
  'Smith, Jr.',
  '李',
  'Nakamura',
  'Okafor',
  'Dubois',
  'Kowalski',
];
const COUNTRIES: readonly (readonly [string, string])[] = [
  ['DE', 'Köln'],
  ['FR', 'Besançon'],
  ['US', 'Springfield'],
  ['JP', '東京'],
  ['BR', 'São Paulo'],
  ['NG', 'Lagos'],
  ['PL', 'Łódź'],
  ['GB', 'London'],
];
const NOTES = [
  'Prefers "express" delivery, weekends only',
  'Line one\nLine two',
  'VIP — handle with care',
  'Called twice, left voicemail; follow up',
  'Asked for invoice in €, not $',
  'Emoji in name field 🚀',
  '',
];
const SEGMENTS = ['consumer', 'smb', 'enterprise', 'partner'];
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'refunded', 'cancelled'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'];
const PRODUCTS = [
  'Widget, large',
  'Gadget "Pro"',
  'Cable 2m',
  'Adapter\nEU plug',
  'Café beans 1kg',
  'Notebook A5',
  'Lamp (warm white)',
];
const EVENT_KINDS = ['page_view', 'login', 'logout', 'add_to_cart', 'checkout', 'search', 'error'];
const PAGES = ['/', '/cart', '/checkout', '/search?q=a,b', '/products/42', '/account'];

const SCHEMA = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, country TEXT NOT NULL,
  city TEXT NOT NULL, segment TEXT NOT NULL, notes TEXT, created_at TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL, total_cents INTEGER NOT NULL, currency TEXT NOT NULL, ordered_at TEXT NOT NULL,
  shipped_at TEXT);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  sku TEXT NOT NULL, description TEXT NOT NULL, quantity INTEGER NOT NULL, unit_price_cents INTEGER NOT NULL,
  discount REAL NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, occurred_at TEXT NOT NULL, kind TEXT NOT NULL, customer_id INTEGER,
  payload TEXT NOT NULL);
`;

const iso = (ms: number) => new Date(ms).toISOString();
const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[^a-zA-Z]/g, '')
    .toLowerCase() || 'user';

/**
 * Creates the tables and fills them for one snapshot, in one transaction with prepared statements, then applies the
 * snapshot's corruption if it has one.
 */
export function fillDatabase(
  db: Database,
  seed: number,
  resourceId: string,
  days: number,
  corruption?: TableCorruption,
): void {
  const sizes = tableSizes(days);
  // Foreign keys point into the rows every snapshot has, so they stay valid as tables grow.
  const baseCustomers = tableSizes(0).customers;
  const rowRandom = (table: string, id: number) => new Random(stableHash(seed, resourceId, table, id));
  db.run(SCHEMA);
  db.run('BEGIN');
  try {
    const customers = db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (let id = 1; id <= sizes.customers; id++) {
      const r = rowRandom('customers', id);
      const first = r.pick(FIRST);
      const last = r.pick(LAST);
      const [country, city] = r.pick(COUNTRIES);
      const notes = r.chance(0.3) ? r.pick(NOTES) : null;
      const created = DATA_EPOCH + id * 3_600_000 + r.int(0, 3_599) * 1000;
      const email = `${slug(first)}.${slug(last)}${id}@example.com`;
      customers.run([id, `${first} ${last}`, email, country, city, r.pick(SEGMENTS), notes, iso(created)]);
    }
    customers.free();

    const orders = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)');
    const items = db.prepare('INSERT INTO order_items VALUES (?, ?, ?, ?, ?, ?, ?)');
    let itemId = 0;
    for (let id = 1; id <= sizes.orders; id++) {
      const r = rowRandom('orders', id);
      let total = 0;
      const count = r.int(1, 4);
      for (let k = 0; k < count; k++) {
        const quantity = r.int(1, 5);
        const price = r.int(199, 49_999);
        const discount = r.pick([0, 0, 0, 0.05, 0.1, 0.25]);
        total += Math.round(quantity * price * (1 - discount));
        const product = r.pick(PRODUCTS);
        items.run([++itemId, id, `SKU-${r.int(1000, 9999)}`, product, quantity, price, discount]);
      }
      const ordered = DATA_EPOCH + id * 1_200_000;
      const status = r.pick(STATUSES);
      const shipped = status === 'shipped' || status === 'delivered' ? iso(ordered + r.int(1, 96) * 3_600_000) : null;
      orders.run([id, r.int(1, baseCustomers), status, total, r.pick(CURRENCIES), iso(ordered), shipped]);
    }
    orders.free();
    items.free();

    const events = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
    for (let id = 1; id <= sizes.events; id++) {
      const r = rowRandom('events', id);
      const kind = r.pick(EVENT_KINDS);
      const customer = r.chance(0.8) ? r.int(1, baseCustomers) : null;
      const payload = JSON.stringify(
        kind === 'error' ? { message: 'timeout, retrying "upstream"', code: r.int(500, 504) } : { page: r.pick(PAGES) },
      );
      events.run([id, iso(DATA_EPOCH + id * 60_000 + r.int(0, 59_999)), kind, customer, payload]);
    }
    events.free();
    if (corruption) corrupt(db, seed, resourceId, corruption);
    db.run('COMMIT');
  } catch (err) {
    db.run('ROLLBACK');
    throw err;
  }
  // Queries share cached databases: nothing may change them.
  db.run('PRAGMA query_only = ON');
}

/**
 * Rows are picked by a hash of their ID, not of the snapshot, so a row corrupted in one snapshot is corrupted in every
 * later one that is corrupted the same way.
 */
function corrupt(db: Database, seed: number, resourceId: string, { kind, table }: TableCorruption): void {
  const ids = (db.exec(`SELECT id FROM ${table} ORDER BY id`)[0]?.values ?? []).map(([id]) => Number(id));
  const picked = ids.filter((id) => stableHash(seed, resourceId, table, id, 'corrupt') % 10 === 0);
  if (picked.length === 0 && ids[0] !== undefined) picked.push(ids[0]);
  if (kind === 'rows-missing') {
    const remove = db.prepare(`DELETE FROM ${table} WHERE id = ?`);
    for (const id of picked) remove.run([id]);
    remove.free();
    return;
  }
  const update = db.prepare(`UPDATE ${table} SET ${CORRUPTED_COLUMNS[table]} = ? WHERE id = ?`);
  for (const id of picked) {
    const hex = [0, 1, 2, 3].map((k) =>
      stableHash(seed, resourceId, table, id, 'cipher', k).toString(16).padStart(8, '0'),
    );
    update.run([`ENC:${hex.join('')}`, id]);
  }
  update.free();
}
