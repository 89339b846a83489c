/**
 * The query-table machinery: one declaration gives the documented schema and the parse, and a table
 * whose declarations and parse disagree never builds.
 */
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../domain/errors.ts';
import { collect, documentCommaLists, paramsOf, queryContract, type QueryParam } from './query-table.ts';

interface Ctx {
  max: number;
}
interface Filter {
  colour?: string[];
  big?: boolean;
}

const { param, field } = paramsOf<Ctx>();
const filterField = field<Filter>();

const TABLE = {
  colour: filterField('colour', {
    type: Type.Array(Type.String()),
    description: 'Comma list of colours.',
    example: 'red,blue',
    errors: [],
    parse: (value) => value?.split(','),
  }),
  size: param<number>({
    type: Type.Integer({ minimum: 1 }),
    description: 'A size, at most the context maximum.',
    errors: ['bad_request'],
    parse: (value, ctx) => {
      const n = Number(value ?? 1);
      if (!Number.isInteger(n)) throw new ApiError('bad_request', `size=${value} is not a whole number.`);
      return Math.min(n, ctx.max);
    },
  }),
  big: filterField('big', {
    type: Type.Boolean(),
    description: 'Only big ones.',
    errors: ['bad_boolean'],
    parse: (value) => {
      if (value === undefined) return undefined;
      if (value !== 'true' && value !== 'false') throw new ApiError('bad_boolean', `big=${value} is not a boolean.`);
      return value === 'true';
    },
  }),
};

describe('queryContract', () => {
  it('documents every declared parameter with its type, description and example, and allows unknown names', () => {
    const contract = queryContract({ params: TABLE, build: (values) => values });
    expect(JSON.parse(JSON.stringify(contract.schema))).toEqual({
      type: 'object',
      additionalProperties: true,
      properties: {
        colour: { type: 'array', items: { type: 'string' }, description: 'Comma list of colours.', examples: ['red,blue'] },
        size: { type: 'integer', minimum: 1, description: 'A size, at most the context maximum.' },
        big: { type: 'boolean', description: 'Only big ones.' },
      },
    });
  });

  it('parses every declared parameter with its own parser and hands the typed values to build', () => {
    const contract = queryContract({ params: TABLE, build: (values, ctx: Ctx) => ({ filter: collect<Filter>(TABLE, values), size: values.size, max: ctx.max }) });
    expect(contract.parse({ colour: 'red,blue', size: '30', big: 'false', other: 'ignored' }, { max: 10 })).toEqual({
      filter: { colour: ['red', 'blue'], big: false },
      size: 10,
      max: 10,
    });
    // Absent filter values are left out of the filter object, so its shape depends only on what was sent.
    expect(contract.parse({}, { max: 10 })).toEqual({ filter: {}, size: 1, max: 10 });
  });

  it('reads in the declared order by default, or in `order`, with checks where `order` puts them', () => {
    const both = { size: 'x', big: 'maybe' };
    expect(() => queryContract({ params: TABLE, build: () => 0 }).parse(both, { max: 5 })).toThrow(/size=x/);
    expect(() => queryContract({ params: TABLE, order: ['big', 'colour', 'size'], build: () => 0 }).parse(both, { max: 5 })).toThrow(/big=maybe/);
    const seen: unknown[] = [];
    const contract = queryContract({
      params: TABLE,
      order: ['size', (values) => seen.push({ ...values }), 'colour', 'big'],
      build: () => 0,
    });
    contract.parse({ size: '3', colour: 'red' }, { max: 5 });
    expect(seen).toEqual([{ size: 3 }]);
  });

  it('refuses to build a table with a parameter that has no parser', () => {
    const broken = { ...TABLE, shape: { type: Type.String(), description: 'Declared, never parsed.', errors: [] } as unknown as QueryParam<string, Ctx> };
    expect(() => queryContract({ params: broken, build: () => 0 })).toThrow(/shape is declared without a parser/);
  });

  it('refuses an order that leaves a declared parameter unread, reads an undeclared one, or reads one twice', () => {
    expect(() => queryContract({ params: TABLE, order: ['colour', 'size'], build: () => 0 })).toThrow(/not read: big/);
    expect(() => queryContract({ params: TABLE, order: ['colour', 'size', 'big', 'shape' as 'big'], build: () => 0 })).toThrow(/undeclared: shape/);
    expect(() => queryContract({ params: TABLE, order: ['colour', 'size', 'big', 'big'], build: () => 0 })).toThrow(/every declared parameter once/);
  });
});

describe('documentCommaLists', () => {
  it('marks array-typed query parameters as comma lists and leaves the others alone', () => {
    const doc = {
      paths: {
        '/x': {
          get: {
            parameters: [
              { in: 'query', name: 'colour', schema: { type: 'array', items: { type: 'string' } } },
              { in: 'query', name: 'size', schema: { type: 'integer' } },
              { in: 'path', name: 'id', schema: { type: 'array' } },
            ],
          },
        },
      },
    };
    expect(documentCommaLists(doc).paths['/x'].get.parameters).toEqual([
      { in: 'query', name: 'colour', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: false },
      { in: 'query', name: 'size', schema: { type: 'integer' } },
      { in: 'path', name: 'id', schema: { type: 'array' } },
    ]);
  });
});
