// The two valibot schemas waybill shapes itself, and the one way issues become field errors.
//
// valibot's strictObject reports the first unknown field only, and its array checks every item
// whatever it finds: a client should learn every unknown field at once, and a batch of 100,000 bad
// keys must cost no more than the first MAX_REPORTED_ERRORS of them. Both keep valibot's `type`,
// `entries` and `item`, so the JSON Schema (and the OpenAPI document) come out as valibot's own.

import * as v from 'valibot'
import { MAX_REPORTED_ERRORS } from '../limits'
import { invalid, type FieldError } from '../errors'

/** True for a JSON object (not an array): what cross-field checks look inside. */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How a JSON value's type reads in a message: `a string`, `an array`, `null`. */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

type Messages = {
  /** When the value is not an object: what it must be (`, not <type>` is added). */
  type?: string | undefined
  /** Per field, when it is missing; `is required` otherwise. */
  required?: Readonly<Record<string, string>> | undefined
  /** What its members are called in messages: `field` (JSON bodies) or `parameter` (queries). */
  noun?: 'field' | 'parameter' | undefined
}

// valibot's datasets as these schemas handle them: built up in place, as valibot's own do.
interface Dataset {
  typed: boolean
  value: unknown
  issues?: v.BaseIssue<unknown>[]
}
type Issue = v.BaseIssue<unknown> & { path?: v.IssuePathItem[] }
type Config = v.Config<v.BaseIssue<unknown>>

const issuesFull = (dataset: Dataset) => (dataset.issues?.length ?? 0) >= MAX_REPORTED_ERRORS

/** Moves `child`'s issues into `dataset` under `pathItem`. */
function adopt(dataset: Dataset, child: Dataset, pathItem: v.IssuePathItem): void {
  for (const issue of (child.issues ?? []) as Issue[]) {
    if (issuesFull(dataset)) return
    if (issue.path) issue.path.unshift(pathItem)
    else issue.path = [pathItem]
    if (dataset.issues) dataset.issues.push(issue)
    else dataset.issues = [issue]
  }
}

/**
 * A strict object: unknown fields are errors, each one named, up to the cap.
 *
 * @example
 * const Body = strict({ origin: OriginName, expiresIn: v.optional(ExpiresIn) })
 */
export function strict<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  messages: Messages = {},
): v.StrictObjectSchema<TEntries, undefined> {
  const known = `is not a known ${messages.noun ?? 'field'} (known: ${Object.keys(entries).join(', ')})`
  const schema = v.strictObject(entries)
  const run = (out: Dataset, config: Config): Dataset => {
    const input = out.value
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      v._addIssue(schema, 'type', out as never, config, {
        message: `${messages.type ?? 'must be a JSON object'}, not ${typeName(input)}`,
      })
      return out
    }
    const record = input as Record<string, unknown>
    out.typed = true
    const value: Record<string, unknown> = {}
    out.value = value
    for (const key in entries) {
      const entry = entries[key]! as v.GenericSchema & { default?: unknown }
      const present = Object.hasOwn(record, key)
      if (!present && !(entry.type === 'optional' && entry.default !== undefined)) {
        if (entry.type === 'optional') continue
        v._addIssue(schema, 'key', out as never, config, {
          input: undefined,
          expected: `"${key}"`,
          message: messages.required?.[key] ?? 'is required',
          path: [{ type: 'object', origin: 'key', input: record, key, value: undefined }],
        })
        if (issuesFull(out)) return out
        continue
      }
      const child = entry['~run']({ value: present ? record[key] : undefined }, config) as Dataset
      if (child.issues) {
        adopt(out, child, {
          type: 'object',
          origin: 'value',
          input: record,
          key,
          value: record[key],
        })
        if (issuesFull(out)) return out
      }
      if (!child.typed) out.typed = false
      value[key] = child.value
    }
    for (const key in record) {
      if (!Object.hasOwn(record, key) || Object.hasOwn(entries, key)) continue
      v._addIssue(schema, 'key', out as never, config, {
        input: key,
        expected: 'never',
        message: known,
        path: [{ type: 'object', origin: 'key', input: record, key, value: record[key] }],
      })
      if (issuesFull(out)) return out
    }
    return out
  }
  return Object.assign(schema, { '~run': run as unknown as (typeof schema)['~run'] })
}

/**
 * An array whose items are checked one by one until the cap of reported problems: past it, the
 * rest are not looked at.
 *
 * @example
 * const Keys = v.pipe(list(ObjectKey), v.minLength(1, 'must contain at least one entry'))
 */
export function list<const TItem extends v.GenericSchema>(
  item: TItem,
  typeMessage = (input: unknown) => `must be an array, not ${typeName(input)}`,
): v.ArraySchema<TItem, undefined> {
  const schema = v.array(item)
  const run = (out: Dataset, config: Config): Dataset => {
    const input = out.value
    if (!Array.isArray(input)) {
      v._addIssue(schema, 'type', out as never, config, { message: typeMessage(input) })
      return out
    }
    out.typed = true
    const value: unknown[] = new Array(input.length)
    out.value = value
    for (let key = 0; key < input.length; key++) {
      const child = item['~run']({ value: input[key] }, config) as Dataset
      if (child.issues) {
        adopt(out, child, { type: 'array', origin: 'value', input, key, value: input[key] })
        if (issuesFull(out)) return out
      }
      if (!child.typed) out.typed = false
      value[key] = child.value
    }
    return out
  }
  return Object.assign(schema, { '~run': run as unknown as (typeof schema)['~run'] })
}

/** A record whose input must be a JSON object: valibot's own takes an array as one. */
export function record<
  const TKey extends v.GenericSchema<string, string | number | symbol>,
  const TValue extends v.GenericSchema,
>(key: TKey, value: TValue, typeMessage: (input: unknown) => string) {
  const schema = v.record(key, value, (issue) => typeMessage(issue.input))
  const own = schema['~run'].bind(schema)
  const run = (dataset: Dataset, config: Config): Dataset => {
    if (!Array.isArray(dataset.value)) return own(dataset as never, config)
    v._addIssue(schema as never, 'type', dataset as never, config, {
      message: typeMessage(dataset.value),
    })
    return dataset
  }
  return Object.assign(schema, { '~run': run as unknown as (typeof schema)['~run'] })
}

/**
 * The issue path to a value inside `input` (`pathTo(body, 'items', 3, 'response')`), for checks
 * that look at several fields at once.
 */
export function pathTo(
  input: unknown,
  ...keys: [string | number, ...(string | number)[]]
): [v.IssuePathItem, ...v.IssuePathItem[]] {
  let current = input
  const path = keys.map((key): v.IssuePathItem => {
    const container = current
    if (Array.isArray(container) && typeof key === 'number') {
      current = container[key]
      return { type: 'array', origin: 'value', input: container, key, value: current }
    }
    const record = (container ?? {}) as Record<string, unknown>
    current = record[key]
    return { type: 'object', origin: 'value', input: record, key: String(key), value: current }
  })
  return path as [v.IssuePathItem, ...v.IssuePathItem[]]
}

/**
 * Field errors for issues: the dotted path (`items.3.key`) and the message, one per field (a value
 * that misses several rules of one field is one problem), up to the cap.
 */
export function fieldErrors(
  issues: readonly {
    message: string
    path?: readonly (PropertyKey | { key: unknown })[] | undefined
  }[],
): FieldError[] {
  const errors: FieldError[] = []
  for (const issue of issues) {
    const path =
      issue.path === undefined || issue.path.length === 0
        ? 'body'
        : issue.path.map((item) => String(typeof item === 'object' ? item.key : item)).join('.')
    if (errors.at(-1)?.path === path) continue
    errors.push({ path, message: issue.message })
    if (errors.length >= MAX_REPORTED_ERRORS) break
  }
  return errors
}

/**
 * The value `schema` makes of `input`, or a 400 naming every field it refuses.
 *
 * @example
 * const body = parse(SignBody, await readJsonBody(c))
 */
export function parse<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input)
  if (!result.success) throw invalid(fieldErrors(result.issues))
  return result.output
}
