/**
 * Query parameters declared once: a table per endpoint family whose entries carry a parameter's name,
 * type, description, example, parser and error codes. From one table come both the OpenAPI
 * `querystring` schema (typed: integers, booleans, enums, formats, comma lists as arrays) and the typed
 * parse the route's handler receives, so a parameter cannot be documented without being read, or read
 * without being documented (`query-table.test.ts`, `test/route-contracts.test.ts`).
 *
 * The schema only documents. The framework validates no query value: the table's parsers are the
 * validator, because the spec wants leniency no JSON Schema validator offers (spec: Shared listing
 * filters, Deliberate non-errors: names case-sensitive, values not; first occurrence wins; a
 * non-numeric `limit` falls back to the default; an over-large one is clamped; unknown names are
 * ignored). `limit=abc` therefore still answers with the default page, never a 400.
 */
import { Type, type TObject, type TSchema } from 'typebox';
import { ApiError, type ErrorCode } from '../domain/errors.ts';

/** The query string after first-occurrence de-duplication (`query-string.ts`): one string per name. */
export type RawQuery = Readonly<Record<string, string | undefined>>;

/**
 * One query parameter. `C` is what parsing needs to know about the caller (its surface, its plan's
 * page size, the provider list); `T` is the parsed value.
 */
export interface QueryParam<T, C> {
  /** The value's type as the contract documents it (description and example are added from below). */
  type: TSchema;
  /** What the contract says about the parameter. */
  description: string;
  /** One legal value, shown in the contract. */
  example?: string | number | boolean;
  /** Every catalogue code a bad value of this parameter answers with (none: every value is accepted). */
  errors: readonly ErrorCode[];
  /**
   * Read the value as sent: `undefined` when absent; otherwise the raw string, untrimmed, so a
   * parameter decides itself what blanks, an empty value or a NUL character mean.
   * @throws ApiError with one of {@link errors} for a value it refuses.
   */
  parse(value: string | undefined, ctx: C): T;
  /**
   * The property of the family's filter object the value goes to (`collect`); unset for a parameter
   * the family's build reads by name (paging, scope).
   */
  into?: string;
}

/** A family's parameters, keyed by name, in the order the contract lists them. */
export type ParamTable<C> = Readonly<Record<string, QueryParam<unknown, C>>>;

/** The parsed values of a table, keyed by parameter name. */
export type QueryValues<P> = { readonly [K in keyof P]: P[K] extends QueryParam<infer T, never> ? T : never };

/**
 * A check across parameters, run at its place in {@link QueryContract.order} with the values parsed
 * so far (e.g. `limit` above 50 with `include_description=true`).
 * @throws ApiError when the combination is refused.
 */
export type QueryCheck<P, C> = (values: Partial<QueryValues<P>>, ctx: C) => void;

/** A route's query: its table, the schema generated from it, and its parse. */
export interface QueryContract<P extends ParamTable<C>, C, R> {
  readonly params: P;
  /** The `querystring` schema for the route (documentation only, see the module comment). */
  readonly schema: TObject;
  /**
   * Parse the raw query: every declared parameter is read (in the table's order, or `order`),
   * checks run where `order` places them, then `build` assembles the handler's value.
   * @throws ApiError from the first parameter or check that refuses.
   */
  parse(raw: RawQuery, ctx: C): R;
}

/**
 * A parameter of type `T` read with context `C`; a helper so that tables need not repeat the generic
 * arguments and so that `into` names a real property of the target with the parsed type.
 */
export function paramsOf<C>() {
  return {
    /** A parameter the family's build reads by name. */
    param: <T>(spec: Omit<QueryParam<T, C>, 'into'>): QueryParam<T, C> => spec,
    /** A parameter whose value goes to property `into` of a filter object of type `F`. */
    field:
      <F>() =>
      <K extends keyof F & string>(into: K, spec: Omit<QueryParam<F[K] | undefined, C>, 'into'>): QueryParam<F[K] | undefined, C> & { into: K } => ({
        ...spec,
        into,
      }),
  };
}

function documented(param: QueryParam<unknown, never>): TSchema {
  // A TypeBox schema's own keywords are its enumerable properties (its kind marker is not).
  const type = { ...param.type } as Record<string, unknown>;
  return Type.Optional(Type.Unsafe({ ...type, description: param.description, ...(param.example === undefined ? {} : { examples: [param.example] }) }));
}

/** The querystring schema of a table; unknown names are allowed (spec: "Unknown parameters are ignored"). */
function querySchema(params: ParamTable<never>): TObject {
  return Type.Object(Object.fromEntries(Object.entries(params).map(([name, param]) => [name, documented(param)])), { additionalProperties: true });
}

type Json = Record<string, unknown>;

/**
 * Mark the array-typed query parameters of an OpenAPI document as comma lists: `style: form,
 * explode: false` is how OpenAPI spells `category=a,b` (a `transformObject` of @fastify/swagger, which
 * can only set a style for a whole querystring).
 */
export function documentCommaLists<T>(document: T): T {
  for (const item of Object.values(((document as Json).paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      for (const parameter of (operation?.parameters ?? []) as Json[]) {
        if (parameter.in === 'query' && (parameter.schema as Json | undefined)?.type === 'array') {
          Object.assign(parameter, { style: 'form', explode: false });
          // The example is the value as a list (`CA,NY` → ["CA", "NY"]): an example must match the schema.
          if (typeof parameter.example === 'string') parameter.example = parameter.example.split(',');
        }
      }
    }
  }
  return document;
}

/**
 * Characters no parameter may hold: NUL, which PostgreSQL's text type cannot store and refuses with an
 * error (so a value holding it could only fail in SQL). Every other code point is a legal `text`
 * value; invalid UTF-8 never reaches here (URLSearchParams decodes it to U+FFFD).
 */
const UNSTORABLE = '\u0000';

/**
 * A declared parameter's raw value, refused when it holds a character PostgreSQL cannot store
 * (issue 13, defect 4: a NUL byte reached SQL as a 500).
 * @throws ApiError 400 `bad_request` naming the parameter.
 */
export function storableValue(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.includes(UNSTORABLE)) {
    throw new ApiError('bad_request', `The value of ${name} contains a NUL character (%00), which no parameter may hold.`);
  }
  return value;
}

/** A path parameter's value refused like {@link storableValue} (ids and slugs reach SQL too). */
export function storablePathValue(name: string, value: string): void {
  if (value.includes(UNSTORABLE)) throw new ApiError('bad_request', `The ${name} in the path contains a NUL character (%00), which no ${name} holds.`);
}

/**
 * Build a route's query contract.
 * @param spec.order the order parameters are read and checks run in, which decides the error a
 *   request with several bad values gets; every parameter exactly once (default: table order, no
 *   checks). @param spec.build assembles the handler's value from the parsed values.
 * @throws Error at definition when a parameter has no parser, or `order` misses, repeats or invents a
 *   name: a route whose table and parse disagree never starts.
 */
export function queryContract<C, const P extends ParamTable<C>, R>(spec: {
  params: P;
  order?: ReadonlyArray<(keyof P & string) | QueryCheck<P, C>>;
  build: (values: QueryValues<P>, ctx: C) => R;
}): QueryContract<P, C, R> {
  const names = Object.keys(spec.params);
  for (const name of names) {
    if (typeof spec.params[name]?.parse !== 'function') throw new Error(`query parameter ${name} is declared without a parser`);
  }
  const steps = spec.order ?? names;
  const ordered = steps.filter((s): s is keyof P & string => typeof s === 'string');
  const unknown = ordered.filter((name) => !(name in spec.params));
  const missing = names.filter((name) => !ordered.includes(name));
  if (unknown.length > 0 || missing.length > 0 || new Set(ordered).size !== ordered.length) {
    throw new Error(`query order must name every declared parameter once (undeclared: ${unknown.join(', ') || 'none'}; not read: ${missing.join(', ') || 'none'})`);
  }
  // Every parameter refuses a NUL character with 400 bad_request before its parser runs (storableValue).
  const params = Object.fromEntries(
    Object.entries(spec.params).map(([name, param]) => [name, param.errors.includes('bad_request') ? param : { ...param, errors: [...param.errors, 'bad_request'] }]),
  ) as unknown as P;
  return {
    params,
    schema: querySchema(params as ParamTable<never>),
    parse(raw, ctx) {
      const values: Record<string, unknown> = {};
      for (const step of steps) {
        if (typeof step === 'function') step(values as Partial<QueryValues<P>>, ctx);
        else values[step] = params[step]!.parse(storableValue(step, raw[step]), ctx);
      }
      return spec.build(values as QueryValues<P>, ctx);
    },
  };
}

/**
 * The values of `table`'s `into` parameters as an object keyed by `into`, in the table's order,
 * leaving out the ones that were absent (so the object's key order, which a cursor's query
 * fingerprint hashes, depends only on what was sent).
 */
export function collect<F>(table: ParamTable<never>, values: Readonly<Record<string, unknown>>): Partial<F> {
  const out: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(table)) {
    const value = values[name];
    if (param.into !== undefined && value !== undefined) out[param.into] = value;
  }
  return out as Partial<F>;
}
