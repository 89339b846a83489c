/**
 * One setting: a TypeBox schema leaf that also names its environment variable, its default (as the
 * variable would spell it, before any decoding) and its meaning. `config.ts` assembles the leaves into
 * the one configuration schema; this module builds a leaf and reads one from the environment.
 *
 * A leaf's TypeBox keywords (minimum, maximum, pattern, the literal choices) are the validation;
 * `kind` only says how the variable's text becomes a value and how a refusal is worded.
 */
import { Type, type TSchema, type TInteger, type TBoolean, type TString, type TUnion, type TUndefined, type TArray, type TUnsafe } from 'typebox';
import { Value } from 'typebox/value';

/** How an environment variable's text is read. */
export type SettingKind = 'integer' | 'boolean' | 'text' | 'url' | 'choice' | 'list' | 'directory' | 'fixed';

/** What every leaf of the configuration schema carries besides its TypeBox keywords. */
export interface SettingMeta {
  /** The environment variable; absent for a `fixed` leaf (a constant, not a setting). */
  env?: string;
  kind: SettingKind;
  /** The meaning, printed by `jobledger config` and in the README's configuration table. */
  description: string;
  /** The value when the variable is unset or empty; undefined: the setting stays unset. */
  default?: unknown;
  /** For `text`: what a valid value looks like, completing "<ENV> must ...". */
  mustBe?: string;
  /** Never echo the refused value (it may hold a password). */
  secret?: boolean;
}

/** A configuration leaf: a TypeBox schema plus {@link SettingMeta}. */
export type SettingSchema = TSchema & SettingMeta;

/** A setting whose value cannot be used; the message names the variable and the problem. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** What a valid text value looks like: a pattern, and the words completing "<ENV> must ..." when it fails. */
export interface TextFormat {
  pattern: string;
  mustBe: string;
  /** Never echo the refused value (it may hold a password). */
  secret?: boolean;
}

/**
 * Builders of configuration leaves, one per kind of environment value. Each reads as one line of a
 * table: the variable, its default (when it has one), its bounds or format (when it has them), its meaning.
 */
export const Setting = {
  /** A whole number from `minimum` to `maximum`, `fallback` when unset. */
  integer(env: string, fallback: number, [minimum, maximum]: readonly [number, number], description: string): TInteger & SettingMeta {
    return Type.Integer({ env, kind: 'integer', default: fallback, minimum, maximum, description }) as TInteger & SettingMeta;
  },
  /** true/false (also 1/0, yes/no, any case). */
  boolean(env: string, fallback: boolean, description: string): TBoolean & SettingMeta {
    return Type.Boolean({ env, kind: 'boolean', default: fallback, description }) as TBoolean & SettingMeta;
  },
  /** Free text, matching `format` when one is given, with a default. */
  text(env: string, fallback: string, ...rest: [description: string] | [format: Omit<TextFormat, 'secret'>, description: string]): TString & SettingMeta {
    const [format, description] = rest.length === 1 ? [{}, rest[0]] : rest;
    return Type.String({ env, kind: 'text', default: fallback, ...format, description }) as TString & SettingMeta;
  },
  /** Text that may stay unset (undefined), matching `format` when set. */
  optionalText(env: string, format: TextFormat, description: string): TUnion<[TString, TUndefined]> & SettingMeta {
    return Type.Union([Type.String({ pattern: format.pattern }), Type.Undefined()], { env, kind: 'text', ...format, description }) as TUnion<[TString, TUndefined]> & SettingMeta;
  },
  /** An absolute http(s) URL; trailing slashes are dropped so paths can be appended. */
  url(env: string, fallback: string, description: string): TString & SettingMeta {
    return Type.String({ env, kind: 'url', pattern: '^https?://', default: fallback, description }) as TString & SettingMeta;
  },
  /** One of the given words. */
  choice<const C extends readonly string[]>(env: string, choices: C, fallback: C[number], description: string): TUnsafe<C[number]> & SettingMeta {
    const union = Type.Union(choices.map((c) => Type.Literal(c)), { env, kind: 'choice', default: fallback, description });
    return Type.Unsafe<C[number]>(union) as TUnsafe<C[number]> & SettingMeta;
  },
  /** A comma-separated list (entries trimmed, empty ones dropped). */
  list(env: string, fallback: string[], description: string): TArray<TString> & SettingMeta {
    return Type.Array(Type.String({ minLength: 1 }), { env, kind: 'list', default: fallback, description }) as TArray<TString> & SettingMeta;
  },
  /** A directory, resolved against the working directory. */
  directory(env: string, fallback: string, description: string): TString & SettingMeta {
    return Type.String({ env, kind: 'directory', minLength: 1, default: fallback, description }) as TString & SettingMeta;
  },
  /** A constant of the code, kept in the schema so every operational value sits in one place. */
  fixed(value: string, description: string): TString & SettingMeta {
    return Type.String({ kind: 'fixed', default: value, description }) as TString & SettingMeta;
  },
};

/** True when `schema` is a configuration leaf rather than a group of settings. */
export function isSetting(schema: TSchema): schema is SettingSchema {
  return typeof (schema as Partial<SettingMeta>).kind === 'string';
}

/** The default as the environment variable would spell it (`jobledger config`, the README). */
export function defaultText(setting: SettingMeta): string | undefined {
  if (setting.default === undefined) return undefined;
  if (Array.isArray(setting.default)) return setting.default.join(',');
  return String(setting.default);
}

function refuse(setting: SettingMeta, raw: string, mustBe: string): never {
  throw new ConfigError(`${setting.env} must ${mustBe}${setting.secret ? '' : `, got "${raw}"`}`);
}

function mustBeText(setting: SettingSchema): string {
  const s = setting as SettingSchema & { minimum?: number; maximum?: number; anyOf?: { const?: string }[] };
  switch (setting.kind) {
    case 'integer':
      return `be an integer from ${s.minimum} to ${s.maximum}`;
    case 'boolean':
      return 'be true or false';
    case 'url':
      return 'be an absolute http or https URL';
    case 'choice':
      return `be one of ${(s.anyOf ?? []).map((c) => c.const).join(', ')}`;
    default:
      return setting.mustBe ?? 'be a valid value';
  }
}

/** The variable's text as the leaf's value, before validation. */
function parse(setting: SettingSchema, raw: string): unknown {
  switch (setting.kind) {
    case 'integer':
      return /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    case 'boolean': {
      const word = raw.trim().toLowerCase();
      if (['true', '1', 'yes'].includes(word)) return true;
      if (['false', '0', 'no'].includes(word)) return false;
      return raw;
    }
    case 'url':
      try {
        new URL(raw);
      } catch {
        return undefined;
      }
      return raw.replace(/\/+$/, '');
    case 'list':
      return raw
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

/**
 * The value of one leaf: the variable's text (unset or empty: the default), read by its kind and
 * checked against its schema, then decoded (a leaf may be a `Type.Decode` codec, e.g. hours to seconds).
 * `directory` values are resolved with `resolvePath`.
 * @throws ConfigError naming the variable when the value fails the schema.
 */
export function readSetting(setting: SettingSchema, env: NodeJS.ProcessEnv, resolvePath: (p: string) => string): unknown {
  const raw = setting.env === undefined ? undefined : env[setting.env];
  const value = raw === undefined || raw === '' ? structuredClone(setting.default) : parse(setting, raw);
  if (!Value.Check(setting, value)) refuse(setting, raw ?? '', mustBeText(setting));
  const decoded = Value.Decode(setting, value);
  return setting.kind === 'directory' ? resolvePath(decoded as string) : decoded;
}
