import type { z } from 'zod';

/**
 * Response decoding on the hot path. zod copies every object it decodes (a page of 20 resources cost about as much
 * as its JSON.parse); yet for the response schemas, which only check, its output equals its input. So each schema is
 * compiled once into a check that reads without copying, and a body that passes is returned as it is. The check is
 * conservative: a schema part it cannot prove output-equals-input for (strip or strict objects, transforms,
 * defaults, string or array checks…) leaves the whole schema to zod, and a body it refuses goes to zod too, so that
 * what is accepted, and every error, stays exactly zod's.
 */

type Check = (value: unknown) => boolean;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

/** Pipes that only turn null into undefined (`nullAsAbsent`): any other value comes out as it went in. */
export const NULL_AS_ABSENT = new WeakSet<z.core.$ZodType>();

const compiled = new WeakMap<z.core.$ZodType, Check | null>();

/** The schema's output for `value`, as `schema.safeParse` gives it (with `value` itself when it passes the check). */
export function decode<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  if (check?.(value)) return { success: true, data: value as z.output<S> };
  return schema.safeParse(value);
}

/** The check for a schema, or undefined when zod must decode it. Exported for the equivalence tests. */
export function compile(schema: z.core.$ZodType): Check | undefined {
  const def = schema._zod.def as Def;
  const checks = (def.checks as readonly z.core.$ZodCheck[] | undefined) ?? [];
  // Refinements and string or array checks stay zod's; a number's few plain bounds are checked here.
  if (checks.length > 0 && def.type !== 'number') return undefined;
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'null':
      return (v) => v === null;
    // No response schema accepts an untyped value: z.any() is left to zod with the rest it cannot prove.
    case 'unknown':
      return () => true;
    case 'number':
      return numberCheck(checks);
    case 'literal': {
      const values = def.values as readonly unknown[];
      return (v) => values.includes(v);
    }
    case 'enum': {
      const values = new Set<unknown>(Object.values(def.entries as Record<string, unknown>));
      return (v) => values.has(v);
    }
    // A null is zod's to turn into undefined; any other value passes as the inner check says.
    case 'pipe': {
      const inner = NULL_AS_ABSENT.has(schema) ? compile(def.in as z.core.$ZodType) : undefined;
      return inner && ((v) => v !== null && inner(v));
    }
    // A value that fails is zod's to replace; one that passes comes out as it is.
    case 'catch':
      return compile(def.innerType as z.core.$ZodType);
    case 'optional':
    case 'nullable': {
      const inner = compile(def.innerType as z.core.$ZodType);
      if (!inner) return undefined;
      return def.type === 'optional' ? (v) => v === undefined || inner(v) : (v) => v === null || inner(v);
    }
    case 'array': {
      const item = compile(def.element as z.core.$ZodType);
      return item && ((v) => Array.isArray(v) && v.every(item));
    }
    case 'union': {
      const options = (def.options as readonly z.core.$ZodType[]).map(compile);
      if (options.some((o) => o === undefined)) return undefined;
      const all = options as Check[];
      return (v) => all.some((o) => o(v));
    }
    case 'record':
      return recordCheck(def);
    case 'object':
      return objectCheck(def);
    default:
      return undefined;
  }
}

function numberCheck(checks: readonly z.core.$ZodCheck[]): Check | undefined {
  const parts: Check[] = [];
  for (const check of checks) {
    const c = check._zod.def as z.core.$ZodCheckDef & Record<string, unknown>;
    if (c.check === 'number_format' && c.format === 'safeint') parts.push((v) => Number.isSafeInteger(v));
    else if (c.check === 'greater_than' && typeof c.value === 'number') {
      const min = c.value;
      parts.push(c.inclusive ? (v) => (v as number) >= min : (v) => (v as number) > min);
    } else if (c.check === 'less_than' && typeof c.value === 'number') {
      const max = c.value;
      parts.push(c.inclusive ? (v) => (v as number) <= max : (v) => (v as number) < max);
    } else return undefined;
  }
  return (v) => typeof v === 'number' && Number.isFinite(v) && parts.every((p) => p(v));
}

// zod builds its output by assignment: an own `__proto__` key would come out as a prototype, not a field.
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.hasOwn(v, '__proto__');

/** Loose objects only: their output holds every input key. Strip and strict objects are zod's. */
function objectCheck(def: Def): Check | undefined {
  const catchall = def.catchall as z.core.$ZodType | undefined;
  if (catchall?._zod.def.type !== 'unknown') return undefined;
  const keys: string[] = [];
  const checks: Check[] = [];
  const optional: boolean[] = [];
  for (const [key, field] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
    const check = compile(field);
    if (!check) return undefined;
    keys.push(key);
    checks.push(check);
    optional.push(field._zod.def.type === 'optional');
  }
  // Parallel arrays and an index loop: this runs for every object of every page.
  const n = keys.length;
  return (v) => {
    if (!isObject(v)) return false;
    for (let i = 0; i < n; i++) {
      const value = v[keys[i] as string];
      // A missing key passes only an optional field (zod refuses it even for z.unknown()).
      if (value === undefined ? !optional[i] : !(checks[i] as Check)(value)) return false;
    }
    return true;
  };
}

/** String keys without checks only; zod also wants a plain object, which a `constructor` key can make it doubt. */
function recordCheck(def: Def): Check | undefined {
  const key = def.keyType as z.core.$ZodType;
  const keyDef = key._zod.def as Def;
  if (keyDef.type !== 'string' || ((keyDef.checks as unknown[] | undefined) ?? []).length > 0) return undefined;
  const value = compile(def.valueType as z.core.$ZodType);
  if (!value) return undefined;
  return (v) => {
    if (!isObject(v) || Object.getPrototypeOf(v) !== Object.prototype || Object.hasOwn(v, 'constructor')) return false;
    for (const k in v) if (!value(v[k])) return false;
    return true;
  };
}
